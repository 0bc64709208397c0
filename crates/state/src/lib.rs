//! placeholder, replaced by the incremental state work
