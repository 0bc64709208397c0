//! placeholder, replaced by the scratchpad work
