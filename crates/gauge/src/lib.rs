//! placeholder, replaced by the gauge work
