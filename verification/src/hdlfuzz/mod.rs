//! Differential fuzzing of the `hdl` IR: random circuits run in the IR simulator,
//! Verilator and Icarus must agree cycle by cycle.
