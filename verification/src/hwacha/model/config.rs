//! Machine parameters, the `vcfg` register and the maximum vector length they give.

use serde::{Deserialize, Serialize};

/// The machine the model stands for: everything that sets the maximum vector length, plus
/// the model's own run limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HwachaParams {
    /// L: vector lanes.
    pub lanes: u32,
    /// B: register-file banks per lane.
    pub banks: u32,
    /// E: entries per bank.
    pub bank_entries: u32,
    /// W: bits per bank entry (a multiple of 64; W/64 = S slices of 64-bit elements).
    pub bank_width: u32,
    /// P: predicate entries per bank.
    pub pred_entries: u32,
    /// The mixed-precision extension (thesis 8, "Mixed-Precision Support"): 32- and
    /// 16-bit registers are packed two and four elements to a 64-bit slot, and the
    /// predicate file holds four strips per entry, so narrow configurations get longer
    /// vectors ([`HwachaParams::elements_per_bank`]).
    pub mixed_precision: bool,
    /// Worker-thread instructions one `vf` may retire before the model gives up with
    /// [`HwachaError::StepLimit`](super::HwachaError::StepLimit): a block that loops
    /// forever would otherwise hang the control thread.
    pub max_worker_steps: u64,
}

impl Default for HwachaParams {
    /// The thesis's machine (one lane of four 128-bit x 256-entry SRAM banks).
    fn default() -> Self {
        HwachaParams {
            lanes: 1,
            banks: 4,
            bank_entries: 256,
            bank_width: 128,
            pred_entries: 256,
            mixed_precision: false,
            max_worker_steps: 10_000_000,
        }
    }
}

/// A parameter that cannot describe a machine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    #[error("{name} must be at least 1")]
    Zero { name: &'static str },
    #[error("bank_width must be a multiple of 64, not {0}")]
    BankWidth(u32),
    #[error("{name} * lanes * banks * bank_width/64 (times 4 with mixed_precision) is {elements} elements; the model holds at most {MAX_ELEMENTS}")]
    TooLarge { name: &'static str, elements: u128 },
}

/// Bound on E * L * B * S (and P * L * B * S), four times that with mixed precision's
/// packing: the model stores every configured register's elements (at most that many of
/// each kind), 32 MiB of data at most.
pub const MAX_ELEMENTS: u128 = 1 << 22;

impl HwachaParams {
    /// The machine of the generator's parameters `p` (the RTL the model checks): the
    /// register file's shape, the lanes and the packing; the run limit the default.
    pub fn of_rtl(p: &generators::hwacha::params::HwachaParams) -> HwachaParams {
        HwachaParams {
            lanes: p.lanes,
            banks: p.banks,
            bank_entries: p.bank_entries,
            bank_width: p.bank_width,
            pred_entries: p.pred_entries,
            mixed_precision: p.mixed_precision,
            ..HwachaParams::default()
        }
    }

    pub fn validate(&self) -> Result<(), ParamError> {
        for (name, v) in [
            ("lanes", self.lanes),
            ("banks", self.banks),
            ("bank_entries", self.bank_entries),
            ("pred_entries", self.pred_entries),
        ] {
            if v == 0 {
                return Err(ParamError::Zero { name });
            }
        }
        if self.bank_width == 0 || !self.bank_width.is_multiple_of(64) {
            return Err(ParamError::BankWidth(self.bank_width));
        }
        let packing = if self.mixed_precision { 4 } else { 1 };
        let per_entry =
            packing * self.lanes as u128 * self.banks as u128 * (self.bank_width / 64) as u128;
        for (name, entries) in [
            ("bank_entries", self.bank_entries),
            ("pred_entries", self.pred_entries),
        ] {
            let elements = entries as u128 * per_entry;
            if elements > MAX_ELEMENTS {
                return Err(ParamError::TooLarge { name, elements });
            }
        }
        if self.max_worker_steps == 0 {
            return Err(ParamError::Zero {
                name: "max_worker_steps",
            });
        }
        Ok(())
    }

    /// Elements per bank slice under `cfg`: the strips of a vector each lane holds, e.
    ///
    /// Baseline (thesis 7.1): e = min(n < 2 ? E : E/n, #vp < 2 ? P : P/#vp) with
    /// n = #vv64 + #vv32 + #vv16, every register a 64-bit slot per element.
    ///
    /// Mixed precision (thesis 6.2 Figure 6.3c, 8 "Register Mapping"): in quarter slots
    /// n' = 4 #vv64 + 2 #vv32 + #vv16, e = min(4E / max(n', 1), 4 (#vp < 2 ? P : P/#vp)),
    /// rounded down to a multiple of 4 when there are 16-bit registers, else of 2 when
    /// there are 32-bit ones (the word and halfword regions then end on whole rows), but
    /// never below the baseline's e: that many strips fit the packed regions too (a
    /// region of n registers packed k to a row needs n * ceil(e/k) <= n * e rows).
    /// Figure 6.3c's 10-entry file with one 64-bit and one 32-bit register gets 6.
    pub fn elements_per_bank(&self, cfg: &Vcfg) -> u64 {
        let per = |count: u64, entries: u32| {
            if count < 2 {
                entries as u64
            } else {
                entries as u64 / count
            }
        };
        let vp = cfg.vp as u64;
        let baseline =
            per(cfg.vv_total() as u64, self.bank_entries).min(per(vp, self.pred_entries));
        if !self.mixed_precision {
            return baseline;
        }
        let quarters = 4 * cfg.vv64 as u64 + 2 * cfg.vv32 as u64 + cfg.vv16 as u64;
        let e =
            (4 * self.bank_entries as u64 / quarters.max(1)).min(4 * per(vp, self.pred_entries));
        let packing = if cfg.vv16 > 0 {
            4
        } else if cfg.vv32 > 0 {
            2
        } else {
            1
        };
        (e / packing * packing).max(baseline)
    }

    /// Maximum vector length under `cfg`: `elements_per_bank` * L * B * S.
    pub fn maxvl(&self, cfg: &Vcfg) -> u64 {
        // Saturating, so that parameters not yet validated cannot overflow.
        self.elements_per_bank(cfg)
            .saturating_mul(self.lanes as u64)
            .saturating_mul(self.banks as u64)
            .saturating_mul(self.bank_width as u64 / 64)
    }
}

/// The `vcfg` register (thesis Figure 7.2): #vv64 in bits 8:0, #vp in 13:9, #vv32 in
/// 22:14, #vv16 in 31:23. Vector data registers are numbered 64-bit ones first, then the
/// 32-bit ones, then the 16-bit ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Vcfg {
    pub vv64: u32,
    pub vp: u32,
    pub vv32: u32,
    pub vv16: u32,
}

impl Vcfg {
    /// The configuration a reset machine has (and reports once configured the same way).
    pub const RESET: Vcfg = Vcfg {
        vv64: 256,
        vp: 16,
        vv32: 0,
        vv16: 0,
    };

    /// Splits a `vcfg` value; bits above 31 are ignored, as the register has none.
    pub fn from_bits(bits: u64) -> Vcfg {
        Vcfg {
            vv64: (bits & 0x1ff) as u32,
            vp: ((bits >> 9) & 0x1f) as u32,
            vv32: ((bits >> 14) & 0x1ff) as u32,
            vv16: ((bits >> 23) & 0x1ff) as u32,
        }
    }

    pub fn to_bits(self) -> u64 {
        self.vv64 as u64
            | (self.vp as u64) << 9
            | (self.vv32 as u64) << 14
            | (self.vv16 as u64) << 23
    }

    /// n: vector data registers of all widths.
    pub fn vv_total(&self) -> u32 {
        self.vv64 + self.vv32 + self.vv16
    }

    /// Element width in bits of vector data register `reg`, `None` past the configured ones.
    pub fn vv_bits(&self, reg: u32) -> Option<u32> {
        if reg < self.vv64 {
            Some(64)
        } else if reg < self.vv64 + self.vv32 {
            Some(32)
        } else if reg < self.vv_total() {
            Some(16)
        } else {
            None
        }
    }

    /// Why the unit cannot be configured this way (the ISA names 0-256 data and 0-16
    /// predicate registers).
    pub fn check(&self) -> Result<(), &'static str> {
        if self.vv_total() > 256 {
            return Err("more than 256 vector data registers");
        }
        if self.vp > 16 {
            return Err("more than 16 predicate registers");
        }
        Ok(())
    }
}
