//! Integer arithmetic building blocks shared by the floating-point units and the
//! datapaths of every design family.

pub mod lzc;
