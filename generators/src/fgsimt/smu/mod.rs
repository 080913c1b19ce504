//! `FgsimtSmu`: the SIMT memory unit (seed 000, section 1.5 and Figure 3: "SMRQ / SLDQ /
//! SMRRQ", and the in-flight counter of the end-of-kernel fence; docs/fgsimt-engine.md,
//! "SMU" and "Interfaces"). Blocks, one file each:
//! - `smrq.rs`: each lane's SMRQ, the lane's thread-group slots in program order (depth
//!   `smrq_insts` warp instructions); inactive lanes' entries hold their place.
//! - `coalesce.rs`: a slot whose op is a plain load or store and whose active lanes'
//!   addresses lie in one cacheable 32-byte line is marked wide as it enters the SMRQs;
//!   it goes as ONE wide request (merged store data and byte mask) once every lane's
//!   SMRQ head is that slot. Other slots go on each active lane's narrow port, each lane
//!   at its own pace; inactive lanes' entries are dropped without an access.
//! - `smrrq.rs`: per D$ port (each narrow port and the wide one), the requests in flight
//!   in request order with the SLDQ entry and byte offsets their data go to (the L1
//!   answers a port in request order), so load data land in program order although the
//!   narrow and wide ports answer independently. The SMRRQs' occupancy is the in-flight
//!   count of the fence.
//! - `sldq.rs`: the lanes' SLDQs, an entry of `threads_per_lane` words per lane for each
//!   load warp instruction (loads, LR, SC, AMOs), reserved as its slots arrive.
//! - With `affine = "abm"` only (+m, seed 000 section 2.6; the other settings' SMU is
//!   the same Verilog as without it): `affine_queue.rs`, the extra memory command
//!   queue of affine unit-stride loads (`aload`, `bundles::affine_load`), each issued
//!   as the wide requests of the lines from its lowest active thread's element to its
//!   highest's (the model's `Asrf::affine_load` count: 4 or 5 for a 32-thread word
//!   load, 2-3 halves, 1-2 bytes), in program order with the slots by stamps; and
//!   `rotate.rs`, the rotation network giving every lane's slot its element of each
//!   returned line.
//!
//! - With hit masks only (`FgsimtParams::hit_masks`: the DWS sequencer splitting on
//!   memory divergence; the other settings' SMU is the same Verilog as without it):
//!   `hit_mask.rs`, each load's answer (`hits`, `bundles::load_hits`: the threads whose
//!   data is in after `hit_window` cycles) and its write-back passes.
//!
//! - With `avc` only (seed 002; the other settings' SMU is the same Verilog as
//!   without it): `private.rs`, the private path. A slot's `private` threads (their own
//!   stack, `stack_check.rs`) are inactive in the SMRQs and the coalescer and go as AVC
//!   transactions (`p_req`/`p_resp`, to the tile's `AvcController`) instead; their
//!   loads fill the SLDQ entry as the D$'s answers do (`Sldq::fill_private`), and
//!   `space` and `idle` wait for the path (and the controller: `avc_idle`).
//!
//! Decisions +m leaves open (docs/fgsimt-engine.md, "SMU"): an affine load needs no
//! new depth parameter: its queue holds `sldq_loads` loads, as each holds an SLDQ entry
//! from its arrival until the SLU pops it; its lines go in ascending order, one a
//! cycle the wide port accepts, lines between active threads included; its inactive
//! threads' words are done at once and its active ones' as their line returns, so
//! `load` and `pop` are unchanged (the bits above a sub-word element are the word's, as
//! for a narrow load); its bytes count in `stat_bytes` with its last request. With +m,
//! a load's SLDQ entry is taken at its first slot (not its last), so that an affine
//! load arriving during the later slots of the instruction before it gets the entry
//! after it. Lines in the uncached region are not checked: the SIU sends no affine
//! load there (`bundles::affine_load`).
//!
//! Ordering (docs "Ordering"): each lane's accesses leave its SMRQ in program order, so a
//! thread's do; a wide request leaves only when every lane's SMRQ head is its slot, so
//! after every narrow request before it was accepted, and a narrow request after it
//! only once it was accepted; the D$ performs a bank's accepted requests in order. An
//! affine load's requests go after every earlier slot's requests were accepted, and a
//! later slot's after its requests were (`affine_queue.rs`); the wide port carries
//! one or the other, never both.
//!
//! Ports: `slot` (in, `bundles::mem_slot`), with +m `aload` (in,
//! `bundles::affine_load`), `space` (out: every lane's SMRQ and SLDQ take a whole warp
//! instruction more, beyond the rest of one being received; an affine load is one),
//! `load` (`bundles::load_data`), `n<l>_req`/`n<l>_resp` per lane and `w_req`/`w_resp`
//! (the L1's narrow and wide ports with `bundles::MEM_TAG_BITS`; the tag is 0: a port's
//! responses come in request order), `idle` (no slot being received, SMRQs and the
//! affine queue empty, nothing in flight: the kernel fence) and Table 3's counters
//! `stat_wide`, `stat_narrow` (accesses issued) and `stat_bytes` (the bytes the threads'
//! accesses ask for: 1 << size for each active thread served; at most 32 a cycle with 8
//! lanes; with +m a cycle late, their terms registered, off the queue's ordering paths:
//! abm 387.3 -> 472.6 MHz at nangate45).

mod affine_queue;
mod coalesce;
mod hit_mask;
mod private;
mod rotate;
mod sldq;
mod smrq;
mod smrrq;

use super::bundles::{affine_load, load_data, load_hits, mem_slot, MEM_TAG_BITS};
use super::l1::{narrow_request, narrow_response, op, wide_request, wide_response};
use super::params::{Affine, FgsimtParams};
use crate::examples::queue::{queue, QueueParams};
use hdl::helpers::popcount;
use hdl::ir::addr_width;
use hdl::{cat, mux, Bits, Bundle, Dir, HdlErrors, Inst, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// The constant `v` of `w` bits, made next to `anchor`.
pub(crate) fn k(anchor: &Value, v: u64, w: u32) -> Value {
    anchor.konst(Bits::from_u64(w, v))
}

/// `v + 1`, back to 0 after `n - 1`.
pub(crate) fn next_mod(v: &Value, n: u32) -> Value {
    let w = v.width();
    mux(
        &v.eq(&k(v, n as u64 - 1, w)),
        &k(v, 0, w),
        &(v + &k(v, 1, w)),
    )
}

/// The AND of `vs` (at least one).
pub(crate) fn all(vs: &[Value]) -> Value {
    vs[1..].iter().fold(vs[0].clone(), |a, b| &a & b)
}

/// `vs` as one value, `vs[0]` in the low bits.
pub(crate) fn cat_low_first(vs: &[Value]) -> Value {
    let refs: Vec<&Value> = vs.iter().rev().collect();
    cat(&refs)
}

/// Named fields packed low first into one queue entry.
pub(crate) struct Layout(pub Vec<(&'static str, u32)>);

impl Layout {
    pub fn width(&self) -> u32 {
        self.0.iter().map(|f| f.1).sum()
    }

    /// `values` in the layout's order, as one word.
    pub fn pack(&self, values: &[Value]) -> Value {
        assert_eq!(values.len(), self.0.len(), "one value a field");
        cat_low_first(values)
    }

    /// Field `name` of `word`.
    pub fn get(&self, word: &Value, name: &str) -> Value {
        let mut lo = 0;
        for &(n, w) in &self.0 {
            if n == name {
                return word.slice(lo + w - 1, lo);
            }
            lo += w;
        }
        panic!("no field {name}")
    }
}

/// A FIFO instance (the `examples::queue` generator) of `layout` entries.
pub(crate) struct Fifo {
    inst: Inst,
    layout: Layout,
}

impl Fifo {
    pub fn new(
        m: &mut ModuleBuilder,
        p: &FgsimtParams,
        name: &str,
        depth: u32,
        layout: Layout,
    ) -> Result<Fifo, HdlErrors> {
        let module = queue(&QueueParams {
            depth,
            width: layout.width(),
            sram_threshold_bits: p.sram_threshold_bits,
            ..QueueParams::default()
        })?;
        Ok(Fifo {
            inst: m.instance(name, &module),
            layout,
        })
    }

    /// Enqueues `values` (in layout order) when `valid`; the caller guarantees room.
    pub fn push(&self, m: &mut ModuleBuilder, valid: &Value, values: &[Value]) {
        m.connect(&self.inst.port("enq_valid"), valid);
        m.connect(&self.inst.port("enq_bits"), &self.layout.pack(values));
    }

    /// Dequeues the head when `pop`.
    pub fn pop(&self, m: &mut ModuleBuilder, pop: &Value) {
        m.connect(&self.inst.port("deq_ready"), pop);
    }

    pub fn valid(&self) -> Value {
        self.inst.port("deq_valid")
    }

    /// Field `name` of the head.
    pub fn head(&self, name: &str) -> Value {
        self.layout.get(&self.inst.port("deq_bits"), name)
    }

    pub fn count(&self) -> Value {
        self.inst.port("count")
    }

    pub fn empty(&self) -> Value {
        !&self.count().or_r()
    }
}

/// The slot counter of the instruction being received.
pub(crate) struct Receive {
    /// The incoming slot's index within its warp instruction.
    pub c: Value,
    /// The incoming slot returns data (not a store).
    pub load: Value,
    /// An instruction has slots still to come.
    pub partial: Value,
    /// ... and it is a load.
    pub partial_load: Value,
}

fn receive(m: &mut ModuleBuilder, p: &FgsimtParams, slot: &Bundle) -> Receive {
    let t = p.threads_per_lane();
    let c = m.reg("rx_slot", addr_width(t as u64), 0u64);
    let was_load = m.reg("rx_load", 1, false);
    let bits = slot.bits();
    let opv = bits.get("op").value();
    let load = opv.ne(&k(opv, op::STORE, op::BITS));
    let last = bits.get("last").value();
    m.when(slot.valid(), |m| {
        m.connect(&c, &mux(last, &k(&c, 0, c.width()), &next_mod(&c, t)));
        m.connect(&was_load, &load);
    });
    let partial = c.or_r();
    Receive {
        partial_load: &partial & &was_load,
        partial,
        c,
        load,
    }
}

/// The SMU of `p` (module `FgsimtSmu`).
pub fn smu(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtSmu");
    let lanes = p.lanes as usize;
    let slot = m.io("slot", Dir::In, &mem_slot(p.lanes, p.avc));
    let space = m.output("space", 1);
    let passes = p.hit_masks().then_some(p.warp_size);
    let load = m.io("load", Dir::Out, &load_data(p.lanes, passes));
    let hits = passes.map(|w| m.io("hits", Dir::Out, &load_hits(w)));
    let nreq: Vec<Bundle> = (0..lanes)
        .map(|l| {
            m.io(
                &format!("n{l}_req"),
                Dir::Out,
                &narrow_request(MEM_TAG_BITS),
            )
        })
        .collect();
    let nresp: Vec<Bundle> = (0..lanes)
        .map(|l| {
            m.io(
                &format!("n{l}_resp"),
                Dir::In,
                &narrow_response(MEM_TAG_BITS),
            )
        })
        .collect();
    let wreq = m.io("w_req", Dir::Out, &wide_request(MEM_TAG_BITS));
    let wresp = m.io("w_resp", Dir::In, &wide_response(MEM_TAG_BITS));
    let idle = m.output("idle", 1);

    let aload =
        (p.affine == Affine::Abm).then(|| m.io("aload", Dir::In, &affine_load(p.warp_size)));

    let rx = receive(&mut m, p, &slot);
    let mut ldq = sldq::Sldq::new(&mut m, p, (&slot, aload.as_ref()), &rx);
    let prv = p
        .avc
        .then(|| private_side(&mut m, p, (&slot, &rx), &mut ldq));
    let slot = prv.as_ref().map_or(slot, |(_, shared)| shared.clone());
    let stamps = aload
        .as_ref()
        .map(|a| affine_queue::Stamps::new(&mut m, p, &rx, &slot, a));
    let wide = coalesce::classify(p, &slot);
    let mut queues: Vec<smrq::Smrq> = (0..lanes)
        .map(|l| {
            let stamp = stamps.as_ref().map(|s| &s.slot);
            smrq::Smrq::new(&mut m, p, l, &slot, (&rx, &ldq.entry, &wide, stamp))
        })
        .collect::<Result<_, _>>()?;
    let mut aq = match (&aload, &ldq.affine_entry) {
        (Some(a), Some(e)) => Some(affine_queue::AffineQueue::new(&mut m, p, a, e)?),
        _ => None,
    };
    let afire = match (&mut aq, &stamps) {
        (Some(aq), Some(s)) => {
            for q in &mut queues {
                let open = aq.allows(&q.fifo.head("stamp"));
                q.gate(&open);
            }
            Some(aq.request(&mut m, (&queues, &rx, s), &wreq))
        }
        _ => None,
    };
    let aaddr = aq.as_ref().map(affine_queue::AffineQueue::addr);
    let areq = aq
        .as_ref()
        .zip(aaddr.as_ref())
        .map(|(a, addr)| (&a.go, addr));
    let wide_fire = coalesce::wide_port(&mut m, &queues, &wreq, areq);
    let mut narrow_fires = Vec::new();
    let mut inflight_empty = Vec::new();
    for (l, q) in queues.iter().enumerate() {
        let fire = q.narrow_port(&mut m, &nreq[l], &wide_fire);
        let rq = smrrq::narrow(&mut m, p, l, (q, &fire), &nresp[l])?;
        ldq.fill_narrow(&mut m, l, &rq, &nresp[l]);
        inflight_empty.push(rq.empty());
        narrow_fires.push(fire);
    }
    let affine = afire.as_ref().zip(aq.as_ref());
    let wq = smrrq::wide(&mut m, p, (&queues, &wide_fire), &wresp, affine)?;
    ldq.fill_wide(&mut m, &wq, &wresp);
    if affine.is_some() {
        ldq.fill_affine(&mut m, p, &wq, &wresp);
    }
    inflight_empty.push(wq.empty());
    inflight_empty.extend(aq.as_ref().map(affine_queue::AffineQueue::empty));
    let ldq_room = ldq.finish(&mut m, p, (&rx, &load), hits.as_ref());

    let mut smrq_room: Vec<Value> = queues.iter().map(|q| q.room(p, &rx)).collect();
    let mut queues_empty: Vec<Value> = queues.iter().map(|q| q.fifo.empty()).collect();
    if let Some((pv, _)) = &prv {
        smrq_room.push(pv.space.clone());
        queues_empty.push(pv.idle.clone());
    }
    m.connect(&space, &(&all(&smrq_room) & &ldq_room));
    let quiet = &(&all(&queues_empty) & &all(&inflight_empty)) & &!&rx.partial;
    m.connect(&idle, &quiet);
    let served = Served {
        narrow: &narrow_fires,
        wide: &wide_fire,
        private: prv.as_ref().map(|(pv, _)| &pv.bytes),
    };
    counters(&mut m, &queues, &served, affine);
    m.finish()
}

/// With `avc`: the private path (`private.rs`) with its ports (`p_req`/`p_resp` to the
/// AVC, `threads`, `avc_idle` in), and the slot the SMRQs see: its private threads
/// inactive.
fn private_side(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    (slot, rx): (&Bundle, &Receive),
    ldq: &mut sldq::Sldq,
) -> (private::Private, Bundle) {
    let g = p.avc_cache();
    let req = m.io(
        "p_req",
        Dir::Out,
        &crate::fgsimt::avc::controller::transaction(&g),
    );
    let resp = m.io(
        "p_resp",
        Dir::In,
        &crate::fgsimt::avc::controller::words(&g),
    );
    let threads = m.input("threads", 32);
    let avc_idle = m.input("avc_idle", 1);
    let entry = ldq.entry.clone();
    let pv = private::private_path(
        m,
        p,
        (slot, rx, &entry),
        (&threads, &avc_idle),
        (&req, &resp),
        ldq,
    );
    let shared = m.wire_bundle("shared_slot", &mem_slot(p.lanes, false));
    let (from, to) = (slot.bits(), shared.bits());
    m.connect(shared.valid(), slot.valid());
    for f in ["op", "size", "last"] {
        m.connect(to.get(f).value(), from.get(f).value());
    }
    let active = from.get("active").value() & &!from.get("private").value();
    m.connect(to.get("active").value(), &active);
    m.connect_bundle(to.get("lane"), from.get("lane"));
    (pv, shared)
}

/// The accesses served in a cycle: narrow and wide requests issued, and with `avc` the
/// bytes of a finished private group.
struct Served<'a> {
    narrow: &'a [Value],
    wide: &'a Value,
    private: Option<&'a Value>,
}

/// Table 3's counters: wide and narrow accesses issued, bytes the threads asked for
/// (with +m `affine`: the affine queue's acceptance and the queue; an affine load's
/// bytes count with its last request, and every term a cycle late, registered, off the
/// paths through the queue's ordering checks).
fn counters(
    m: &mut ModuleBuilder,
    queues: &[smrq::Smrq],
    served: &Served,
    affine: Option<(&Value, &affine_queue::AffineQueue)>,
) {
    let (narrow, wide) = (served.narrow, served.wide);
    let count = |m: &mut ModuleBuilder, name: &str, add: &Value| {
        let r = m.reg(&format!("{name}_count"), 32, 0u64);
        m.connect(&r, &(&r + &add.zext(32)));
        let o = m.output(name, 32);
        m.connect(&o, &r);
    };
    let late = |m: &mut ModuleBuilder, name: &str, v: Value| {
        if affine.is_none() {
            return v;
        }
        let r = m.reg(&format!("stat_{name}_term"), v.width(), 0u64);
        m.connect(&r, &v);
        r
    };
    let wide_any = affine.map_or_else(|| wide.clone(), |(fire, _)| wide | fire);
    let wide_any = late(m, "wide_any", wide_any);
    count(m, "stat_wide", &wide_any);
    let narrow: Vec<Value> = (narrow.iter().enumerate())
        .map(|(l, f)| late(m, &format!("narrow{l}"), f.clone()))
        .collect();
    count(m, "stat_narrow", &popcount(&cat_low_first(&narrow)));
    let bytes = |size: &Value| k(size, 1, 32).dshl(size);
    let zero = k(wide, 0, 32);
    let mut total = zero.clone();
    let mut wide_threads = zero.clone();
    for (l, (q, fire)) in queues.iter().zip(&narrow).enumerate() {
        let size = late(m, &format!("size{l}"), q.fifo.head("size"));
        total = &total + &mux(fire, &bytes(&size), &zero);
        let active = late(m, &format!("active{l}"), q.fifo.head("active"));
        wide_threads = &wide_threads + &active.zext(32);
    }
    let size = late(m, "wide_size", queues[0].fifo.head("size"));
    let wide_bytes = wide_threads.dshl(&size);
    let wide = late(m, "wide", wide.clone());
    total = &total + &mux(&wide, &wide_bytes, &zero);
    if let Some((fire, aq)) = affine {
        let last = mux(&(fire & &aq.last), &aq.bytes(), &zero);
        total = &total + &late(m, "affine_bytes", last);
    }
    if let Some(bytes) = served.private {
        total = &total + bytes;
    }
    count(m, "stat_bytes", &total);
}
