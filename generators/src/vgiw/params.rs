//! Parameters of the VGIW core (seed 004, Table 1 and section 3): one flat serde struct,
//! every knob sweepable with `--set name=value`. The paper leaves the CVT's size, the
//! LVC's geometry beyond its 64 KB and the switch's fan-out open; those defaults are ours.

use super::fabric::token::Layout;
use super::grid;
use crate::fgsimt::params::{
    control_processor, host_params, DcacheParams, BLOCK_BYTES, MAX_BANK_SETS,
};
use crate::rocket::params::RocketParams;
use crate::schema::{self, Param};
use crate::ParamError;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VgiwParams {
    /// Grid rows and columns (0 and 0: the smallest grid that holds the unit mix, with
    /// the load/store and live value units on its perimeter).
    pub rows: u32,
    pub cols: u32,
    /// Merged FP-ALU compute units (32).
    pub compute_units: u32,
    /// Special compute units for divides and square roots (12).
    pub scus: u32,
    /// Load/store units on the perimeter (16).
    pub ldsts: u32,
    /// Live value units on the perimeter (16).
    pub lvus: u32,
    /// Split/join units (16).
    pub sjus: u32,
    /// Control vector units (16).
    pub cvus: u32,
    /// Consumers a unit's output reaches through its switch; more through split units.
    pub max_fanout: u32,
    /// Values each link between neighbouring switches carries in a configuration.
    pub switch_channels: u32,
    /// CVT words (64 bits each) over all blocks of a kernel: a tile has
    /// `cvt_words / blocks * 64` threads.
    pub cvt_words: u32,
    /// CVT banks (8).
    pub cvt_banks: u32,
    /// Most basic blocks a kernel may have (the BBS's non-empty bit a block).
    pub max_blocks: u32,
    /// Blocks the configurator holds (the one configured, the prefetched ones and those
    /// used before, across launches; 8: 45 KB at Table 1's grid).
    pub config_slots: u32,
    /// LVC bytes (64 KB; direct-mapped with 32-byte lines, `lvc.rs`).
    pub lvc_bytes: u32,
    pub lvc_banks: u32,
    /// Virtual channels: token buffer entries a unit, threads in flight a replica.
    pub vcs: u32,
    /// Divider instances an SCU.
    pub scu_instances: u32,
    /// Requests an LDSTU or LVU has in flight or answered and not yet sent on.
    pub port_outstanding: u32,
    /// Pipeline stages of the compute units' fused multiply-add.
    pub fma_stages: u32,
    /// The memory policy's threshold (`crate::memory::style`).
    pub sram_threshold_bits: u64,
    /// The control processor's L1 I$ bytes (`system.rs`).
    pub icache_bytes: u32,
    /// The banked L1 D$ the LDSTUs and the control processor share (Table 1: 64 KB, 32
    /// banks; ours is direct-mapped with 32-byte lines).
    pub l1_bytes: u32,
    pub l1_banks: u32,
    /// The region the L1 leaves uncached (the host's HTIF mailbox).
    pub uncached_base: u64,
    pub uncached_size: u64,
    /// Where the loader puts the kernel directory and images (`launcher.rs`), and the
    /// live values' array the LVC caches; both outside the program's RAM.
    pub image_base: u64,
    pub live_base: u64,
}

impl Default for VgiwParams {
    fn default() -> Self {
        VgiwParams {
            rows: 0,
            cols: 0,
            compute_units: 32,
            scus: 12,
            ldsts: 16,
            lvus: 16,
            sjus: 16,
            cvus: 16,
            max_fanout: 4,
            switch_channels: 2,
            cvt_words: 1024,
            cvt_banks: 8,
            max_blocks: 64,
            config_slots: 8,
            lvc_bytes: 64 * 1024,
            lvc_banks: 8,
            vcs: 16,
            scu_instances: 4,
            port_outstanding: 4,
            fma_stages: 3,
            sram_threshold_bits: crate::memory::DEFAULT_SRAM_THRESHOLD_BITS,
            icache_bytes: 16 * 1024,
            l1_bytes: 64 * 1024,
            l1_banks: 32,
            uncached_base: 0x8000_0000,
            uncached_size: 0x1000,
            image_base: 0x4000_0000,
            live_base: 0x6000_0000,
        }
    }
}

pub fn params() -> Vec<Param> {
    let [icache, uncached_base, uncached_size] =
        host_params("start of the data region that bypasses the L1 (HTIF mailbox)");
    vec![
        Param::int(
            "rows",
            0,
            grid::MAX_SIDE.into(),
            "grid rows (0: the smallest grid for the unit mix)",
        ),
        Param::int(
            "cols",
            0,
            grid::MAX_SIDE.into(),
            "grid columns (0: the smallest grid for the unit mix)",
        ),
        Param::int("compute_units", 1, 1024, "merged FP-ALU compute units"),
        Param::int(
            "scus",
            1,
            1024,
            "special compute units (divide, square root)",
        ),
        Param::int("ldsts", 1, 1024, "load/store units"),
        Param::int("lvus", 1, 1024, "live value units"),
        Param::int("sjus", 1, 1024, "split/join units"),
        Param::int("cvus", 1, 1024, "control vector units"),
        Param::int(
            "max_fanout",
            2,
            8,
            "consumers a unit's output reaches directly",
        ),
        Param::int(
            "switch_channels",
            1,
            8,
            "values a link between neighbouring switches carries",
        ),
        Param::int("cvt_words", 8, 4096, "CVT words (64 bits each)").pow2(),
        Param::int("cvt_banks", 1, 64, "CVT banks").pow2(),
        Param::int("max_blocks", 2, 1024, "most basic blocks a kernel may have").pow2(),
        Param::int(
            "config_slots",
            1,
            32,
            "blocks the configurator holds (configured and prefetched)",
        ),
        Param::int("lvc_bytes", 256, 1 << 22, "LVC bytes").pow2(),
        Param::int("lvc_banks", 1, 64, "LVC banks").pow2(),
        // At most 64: a token buffer slot's array (vcs x 48 bits, read combinationally
        // by the firing entry) stays below the SRAM threshold (`crate::memory`).
        Param::int(
            "vcs",
            2,
            64,
            "virtual channels (token buffer entries a unit)",
        )
        .pow2(),
        Param::int("scu_instances", 1, 16, "divider instances an SCU"),
        Param::int(
            "port_outstanding",
            1,
            64,
            "requests an LDSTU or LVU keeps in flight",
        ),
        Param::int(
            "fma_stages",
            crate::fpu::fma::MIN_STAGES.into(),
            crate::fpu::fma::MAX_STAGES.into(),
            "pipeline stages of the compute units' fused multiply-add",
        ),
        crate::memory::threshold_param(),
        icache,
        Param::int(
            "l1_bytes",
            1024,
            1 << 22,
            "L1 D$ bytes over all banks (direct-mapped, 32-byte lines)",
        )
        .pow2(),
        Param::int("l1_banks", 1, 32, "L1 D$ banks, interleaved by line").pow2(),
        uncached_base,
        uncached_size,
        Param::int(
            "image_base",
            0,
            (1 << 32) - 8,
            "where the loader puts the kernel directory and images (8-byte aligned)",
        )
        .hex(),
        Param::int(
            "live_base",
            0,
            (1 << 32) - 4,
            "the live values' array in memory (word aligned)",
        )
        .hex(),
    ]
}

impl VgiwParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        schema::check_fields(&params(), self)?;
        if (self.rows == 0) != (self.cols == 0) {
            return Err(ParamError::new(
                "rows",
                "rows and cols are both 0 (automatic) or both set",
            ));
        }
        if self.rows == 0 && grid::auto_shape(self).is_none() {
            return Err(ParamError::new(
                "compute_units",
                format!(
                    "{} units do not fit a grid of at most {side} x {side} cells",
                    self.units().iter().sum::<u32>(),
                    side = grid::MAX_SIDE
                ),
            ));
        }
        if self.rows != 0 && !grid::fits(self, self.rows, self.cols) {
            return Err(ParamError::new(
                "rows",
                format!(
                    "a {} x {} grid does not hold the units: {} load/store and live value units on its {} perimeter cells, {} others in its {} interior cells",
                    self.rows,
                    self.cols,
                    self.ldsts + self.lvus,
                    2 * (self.rows + self.cols).saturating_sub(2),
                    self.compute_units + self.scus + self.sjus + self.cvus,
                    self.rows.saturating_sub(2) * self.cols.saturating_sub(2)
                ),
            ));
        }
        if self.cvt_banks > self.cvt_words {
            return Err(ParamError::new(
                "cvt_banks",
                format!("must be at most cvt_words ({})", self.cvt_words),
            ));
        }
        if self.max_blocks > self.cvt_words {
            return Err(ParamError::new(
                "max_blocks",
                format!(
                    "must be at most cvt_words ({}): a block needs a CVT word",
                    self.cvt_words
                ),
            ));
        }
        let line = BLOCK_BYTES;
        if self.lvc_banks * line > self.lvc_bytes {
            return Err(ParamError::new(
                "lvc_banks",
                format!(
                    "{} banks of at least one {line}-byte line do not fit {} bytes",
                    self.lvc_banks, self.lvc_bytes
                ),
            ));
        }
        // The L1 and the LVC are the FG-SIMT D$, whose bank keeps a valid and a dirty
        // bit a line in one register each.
        for (name, bytes, banks) in [
            ("l1_bytes", self.l1_bytes, self.l1_banks),
            ("lvc_bytes", self.lvc_bytes, self.lvc_banks),
        ] {
            let sets = bytes / BLOCK_BYTES / banks;
            if sets as u64 > MAX_BANK_SETS {
                return Err(ParamError::new(
                    name,
                    format!("{bytes} bytes over {banks} banks is {sets} lines a bank; at most {MAX_BANK_SETS}"),
                ));
            }
        }
        for (name, v, align) in [
            ("image_base", self.image_base, 8),
            ("live_base", self.live_base, 4),
        ] {
            if v % align != 0 {
                return Err(ParamError::new(
                    name,
                    format!("{v:#x} is not a multiple of {align}"),
                ));
            }
        }
        Ok(())
    }

    /// The L1 D$: a narrow port an LDSTU, then the control processor's.
    pub fn l1(&self) -> DcacheParams {
        DcacheParams {
            bytes: self.l1_bytes,
            line_bytes: BLOCK_BYTES,
            banks: self.l1_banks,
            ways: 1,
            mshrs: 0,
            mshr_targets: 1,
            narrow_ports: self.ldsts + 1,
            uncached_base: self.uncached_base,
            uncached_size: self.uncached_size,
            sram_threshold_bits: self.sram_threshold_bits,
        }
    }

    /// The control processor: the FG-SIMT engine's (RV32IMAF, direct ports to the L1).
    pub fn cp(&self) -> RocketParams {
        control_processor(
            self.uncached_base,
            self.uncached_size,
            self.sram_threshold_bits,
        )
    }

    /// The units of each type (in [`Unit::ALL`] order).
    pub fn units(&self) -> [u32; 6] {
        [
            self.compute_units,
            self.scus,
            self.ldsts,
            self.lvus,
            self.sjus,
            self.cvus,
        ]
    }

    /// The token's field widths.
    pub fn layout(&self) -> Layout {
        Layout {
            vc_bits: self.vcs.trailing_zeros(),
        }
    }

    /// Threads in a tile of a kernel of `blocks` blocks: the CVT's words a block, at
    /// most `MAX_TILE_WORDS` (the tokens' 16-bit thread IDs), 64 threads a word; 0 for
    /// more blocks than the BBS takes.
    pub fn tile_threads(&self, blocks: usize) -> u32 {
        if blocks > self.max_blocks as usize {
            return 0;
        }
        self.tile_words(blocks) * 64
    }

    /// CVT words a block of a kernel of `blocks` blocks (the BBS's `launch.words`).
    pub fn tile_words(&self, blocks: usize) -> u32 {
        (self.cvt_words / blocks.max(1) as u32).min(super::bbs::MAX_TILE_WORDS)
    }
}
