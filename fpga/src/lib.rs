//! fpga
