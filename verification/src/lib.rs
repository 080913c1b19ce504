//! Verification: golden models, co-simulation and differential testing.

pub mod hdlfuzz;
