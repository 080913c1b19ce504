//! One lane's vector execution unit: the expander, the banks and the shared units.

pub mod alu;
pub mod bank;
pub mod expander;
pub mod imul;
pub mod plu;
pub mod uop;
pub mod vxu;
