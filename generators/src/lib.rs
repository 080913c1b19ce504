//! generators
