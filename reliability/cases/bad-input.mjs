export default () => []
