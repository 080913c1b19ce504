//! `banked_rf`: a register file of `entries` words spread over `banks` one-read,
//! one-write memories (SRAM macros or inferred arrays). Register `a` lives in bank
//! `a % banks` (the low address bits), row `a / banks`. Read and write ports reach the
//! banks through crossbars with a fixed-priority arbiter per bank: when ports collide on a
//! bank, the lowest-numbered one is granted (`ready` high) and the others must retry.
//! Read data returns on `resp` one cycle after the request fires.

use crate::examples::crossbar::crossbar;
use crate::schema::{self, Param};
use crate::{Generator, ParamError};
use hdl::helpers::{onehot_decode, onehot_mux};
use hdl::ir::addr_width;
use hdl::{Bits, Dir, HdlErrors, MemStyle, Module, ModuleBuilder, Shape, Value};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BankedRfParams {
    pub banks: u32,
    pub entries: u32,
    pub width: u32,
    pub read_ports: u32,
    pub write_ports: u32,
    /// Data bits per write-mask bit; 0 for unmasked writes.
    pub mask_gran: u32,
    pub sram: bool,
}

impl Default for BankedRfParams {
    fn default() -> Self {
        BankedRfParams {
            banks: 4,
            entries: 64,
            width: 32,
            read_ports: 2,
            write_ports: 1,
            mask_gran: 0,
            sram: true,
        }
    }
}

pub const MAX_BANKS: u32 = 256;
pub const MAX_ENTRIES: u32 = 1 << 20;
pub const MAX_PORTS: u32 = 16;
/// Wide enough for vector registers; wider words are better built from several files.
pub const MAX_WIDTH: u32 = 1024;

pub struct BankedRf;

impl Generator for BankedRf {
    type Params = BankedRfParams;
    const NAME: &'static str = "banked_rf";
    const DESCRIPTION: &'static str =
        "banked register file: 1R1W SRAM banks behind read/write crossbars with per-bank arbiters";

    fn params() -> Vec<Param> {
        let ports = u64::from(MAX_PORTS);
        vec![
            Param::int(
                "banks",
                1,
                MAX_BANKS.into(),
                "number of 1R1W banks; register a is in bank a % banks",
            )
            .pow2(),
            Param::int(
                "entries",
                2,
                MAX_ENTRIES.into(),
                "registers in total (at least banks)",
            )
            .pow2(),
            Param::int("width", 1, MAX_WIDTH.into(), "bits per register"),
            Param::int(
                "read_ports",
                1,
                ports,
                "read ports; each returns data one cycle after its request fires",
            ),
            Param::int("write_ports", 1, ports, "write ports"),
            Param::int(
                "mask_gran",
                0,
                MAX_WIDTH.into(),
                "data bits per write-mask bit (must divide width); 0 for unmasked writes",
            ),
            Param::boolean(
                "sram",
                "banks are SRAM macros (true) or inferred arrays (false)",
            ),
        ]
    }

    fn validate(p: &BankedRfParams) -> Result<(), ParamError> {
        schema::check_fields(&Self::params(), p)?;
        if p.entries < p.banks {
            return Err(ParamError::new(
                "entries",
                format!("must be at least banks ({}), got {}", p.banks, p.entries),
            ));
        }
        if p.mask_gran != 0 && !p.width.is_multiple_of(p.mask_gran) {
            return Err(ParamError::new(
                "mask_gran",
                format!(
                    "must be 0 or divide width ({}), got {}",
                    p.width, p.mask_gran
                ),
            ));
        }
        Ok(())
    }

    fn build(p: &BankedRfParams) -> Result<Rc<Module>, HdlErrors> {
        banked_rf(p)
    }
}

/// Mask bits of a write (0 when unmasked).
fn mask_bits(p: &BankedRfParams) -> u32 {
    p.width.checked_div(p.mask_gran).unwrap_or(0)
}

/// A write: address, data and, when masked, the mask.
fn write_shape(addr_bits: u32, width: u32, mask_bits: u32) -> Shape {
    let mut fields = vec![
        Shape::field("addr", Shape::UInt(addr_bits)),
        Shape::field("data", Shape::UInt(width)),
    ];
    if mask_bits > 0 {
        fields.push(Shape::field("mask", Shape::UInt(mask_bits)));
    }
    Shape::bundle(fields)
}

/// One bank: a `depth` x `width` memory with a synchronous read port `rd` (data on
/// `rdata` the next cycle) and a write port `wr`.
pub fn bank(
    depth: u64,
    width: u32,
    mask_bits: u32,
    style: MemStyle,
) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("Bank");
    let aw = addr_width(depth);
    let rd = m.io("rd", Dir::In, &Shape::valid(Shape::UInt(aw)));
    let wr = m.io(
        "wr",
        Dir::In,
        &Shape::valid(write_shape(aw, width, mask_bits)),
    );
    let rdata = m.output("rdata", width);
    let mem = m.mem("mem", depth, width, style);
    let data = m.read_sync(&mem, rd.bits().value(), rd.valid());
    m.connect(&rdata, &data);
    let w = wr.bits();
    let (addr, wdata) = (w.get("addr").value(), w.get("data").value());
    m.when(wr.valid(), |m| {
        if mask_bits > 0 {
            m.write_masked(&mem, addr, wdata, w.get("mask").value());
        } else {
            m.write(&mem, addr, wdata);
        }
    });
    m.finish()
}

/// The register file; ports `read` (requests), `resp` (read data) and `write`, each a
/// vector with one element per port.
pub fn banked_rf(p: &BankedRfParams) -> Result<Rc<Module>, HdlErrors> {
    let aw = p.entries.ilog2();
    let bank_bits = p.banks.ilog2();
    let depth = (p.entries / p.banks) as u64;
    let row_bits = addr_width(depth);
    let style = if p.sram {
        MemStyle::Sram
    } else {
        MemStyle::Inferred
    };
    let mb = mask_bits(p);
    let (nr, nw) = (p.read_ports, p.write_ports);

    let mut m = ModuleBuilder::new("BankedRegFile");
    let read = m.io(
        "read",
        Dir::In,
        &Shape::Vec(nr, Box::new(Shape::decoupled(Shape::UInt(aw)))),
    );
    let resp = m.io(
        "resp",
        Dir::Out,
        &Shape::Vec(nr, Box::new(Shape::valid(Shape::UInt(p.width)))),
    );
    let write = m.io(
        "write",
        Dir::In,
        &Shape::Vec(nw, Box::new(Shape::decoupled(write_shape(aw, p.width, mb)))),
    );

    // (bank, row) of an address; a field with no address bits is a constant 0, as the
    // crossbar and the banks have at least one bit of bank index and row.
    let split = |addr: &Value| -> (Value, Value) {
        let zero = addr.konst(Bits::zero(1));
        let bank = if bank_bits == 0 {
            zero.clone()
        } else {
            addr.slice(bank_bits - 1, 0)
        };
        let row = if bank_bits == aw {
            zero
        } else {
            addr.slice(aw - 1, bank_bits)
        };
        (bank, row)
    };

    let rx = crossbar("ReadCrossbar", nr, p.banks, &Shape::UInt(row_bits))?;
    let wx = crossbar(
        "WriteCrossbar",
        nw,
        p.banks,
        &write_shape(row_bits, p.width, mb),
    )?;
    let (rxi, wxi) = (m.instance("read_xbar", &rx), m.instance("write_xbar", &wx));
    let (rx_in, rx_out) = (rxi.io("in"), rxi.io("out"));
    let (wx_in, wx_out) = (wxi.io("in"), wxi.io("out"));

    for i in 0..nr as usize {
        let (r, x) = (read.index(i), rx_in.index(i));
        let (bank, row) = split(r.bits().value());
        m.connect(x.valid(), r.valid());
        m.connect(x.bits().get("dest").value(), &bank);
        m.connect(x.bits().get("payload").value(), &row);
        m.connect(r.ready(), x.ready());
    }
    for i in 0..nw as usize {
        let (w, x) = (write.index(i), wx_in.index(i));
        let (bank, row) = split(w.bits().get("addr").value());
        let payload = x.bits().get("payload");
        m.connect(x.valid(), w.valid());
        m.connect(x.bits().get("dest").value(), &bank);
        m.connect(payload.get("addr").value(), &row);
        m.connect(payload.get("data").value(), w.bits().get("data").value());
        if mb > 0 {
            m.connect(payload.get("mask").value(), w.bits().get("mask").value());
        }
        m.connect(w.ready(), x.ready());
    }

    // Every bank comes from its own call of the same generator; the design's
    // deduplication turns the identical results into one module definition.
    let mut rdata = Vec::new();
    for b in 0..p.banks as usize {
        let inst = m.instance(&format!("bank{b}"), &bank(depth, p.width, mb, style)?);
        m.connect_bundle(&inst.io("rd"), rx_out.index(b));
        m.connect_bundle(&inst.io("wr"), wx_out.index(b));
        rdata.push(inst.port("rdata"));
    }

    // A granted read's data arrives from its bank on the next cycle.
    for i in 0..nr as usize {
        let (r, o) = (read.index(i), resp.index(i));
        // A named wire rather than a shared expression: the emitter spells out shared
        // expressions that drive registers instead of naming them (reported to hdl/).
        let fired = m.wire(&format!("read{i}_fire"), 1);
        m.connect(&fired, &r.fire());
        let valid = m.reg(&format!("resp{i}_valid"), 1, false);
        m.connect(&valid, &fired);
        m.connect(o.valid(), &valid);
        let data = if p.banks == 1 {
            rdata[0].clone()
        } else {
            let sel = m.reg_en(&format!("resp{i}_bank"), bank_bits, 0u64, &fired);
            m.connect(&sel, &split(r.bits().value()).0);
            onehot_mux(&onehot_decode(&sel, p.banks), &rdata)
        };
        m.connect(o.bits().value(), &data);
    }
    m.finish()
}

/// A write request; `mask` has one bit per `mask_gran` data bits (ignored when unmasked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RfWrite {
    pub addr: u32,
    pub data: u128,
    pub mask: u64,
}

/// Inputs of one cycle: per port, the request if its `valid` is high.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RfIn {
    pub reads: Vec<Option<u32>>,
    pub writes: Vec<Option<RfWrite>>,
}

/// A read response: `data` bits are meaningful where `known` is set (registers start
/// undefined, and masked writes define them piecewise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RfResp {
    pub data: u128,
    pub known: u128,
}

/// Outputs of one cycle; `*_ready` only matter for ports whose request is valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RfOut {
    pub read_ready: Vec<bool>,
    pub write_ready: Vec<bool>,
    pub resp: Vec<Option<RfResp>>,
}

/// Golden model for words of at most 128 bits: a flat array of registers, a request
/// granted iff no lower-numbered port requests the same bank, reads returning the value
/// before the same cycle's writes.
pub struct BankedRfModel {
    params: BankedRfParams,
    regs: Vec<RfResp>,
    resp: Vec<Option<RfResp>>,
}

impl BankedRfModel {
    pub fn new(params: &BankedRfParams) -> BankedRfModel {
        BankedRfModel {
            params: params.clone(),
            regs: vec![RfResp { data: 0, known: 0 }; params.entries as usize],
            resp: vec![None; params.read_ports as usize],
        }
    }

    /// Reset cancels reads in flight; registers are memory and keep their values.
    pub fn reset(&mut self) {
        self.resp.iter_mut().for_each(|r| *r = None);
    }

    fn granted(&self, addrs: &[Option<u32>]) -> Vec<bool> {
        let bank = |a: u32| a % self.params.banks;
        addrs
            .iter()
            .enumerate()
            .map(|(i, a)| match a {
                Some(a) => !addrs[..i].iter().flatten().any(|&b| bank(b) == bank(*a)),
                None => false,
            })
            .collect()
    }

    pub fn outputs(&self, i: &RfIn) -> RfOut {
        let write_addrs: Vec<Option<u32>> = i.writes.iter().map(|w| w.map(|w| w.addr)).collect();
        RfOut {
            read_ready: self.granted(&i.reads),
            write_ready: self.granted(&write_addrs),
            resp: self.resp.clone(),
        }
    }

    /// One clock edge with inputs `i`.
    pub fn step(&mut self, i: &RfIn) {
        let o = self.outputs(i);
        self.resp = i
            .reads
            .iter()
            .zip(&o.read_ready)
            .map(|(a, &g)| a.filter(|_| g).map(|a| self.regs[a as usize]))
            .collect();
        let word = match self.params.width {
            128 => u128::MAX,
            w => (1u128 << w) - 1,
        };
        let gran = match self.params.mask_gran {
            0 => self.params.width,
            g => g,
        };
        for (w, _) in i.writes.iter().zip(&o.write_ready).filter(|(_, &g)| g) {
            let w = w.expect("granted writes are valid");
            let bits = (0..self.params.width)
                .filter(|b| self.params.mask_gran == 0 || (w.mask >> (b / gran)) & 1 == 1)
                .fold(0u128, |acc, b| acc | 1 << b);
            let r = &mut self.regs[w.addr as usize];
            r.data = (r.data & !bits) | (w.data & bits & word);
            r.known |= bits;
        }
    }
}
