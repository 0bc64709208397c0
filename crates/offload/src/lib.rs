//! placeholder, replaced by the offload work
