//! asic-flow
