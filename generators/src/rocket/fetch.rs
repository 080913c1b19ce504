//! The core's IF stage: the fetch requests with their response tracking, and the
//! fetch queue whose head is ID (`core.rs`, module comment: IF). Fetch predicts
//! fall-through, or follows the BTB (`bpred.rs`), looked up with the pc being requested
//! as Rocket's front end does: the next request goes to a predicted-taken target, so a
//! taken branch or jump the BTB predicts costs no cycle. Each request in flight keeps the
//! pc fetch went on to after it (`Requests::resp_pred`), which its instruction carries
//! into the queue for EX to check.
//!
//! Fetch requests while the queue's entries plus the requests in flight leave an entry
//! free. With [`QUEUE_ENTRIES`] = 3 and two requests in flight, I$ hits stream one
//! instruction a cycle: in steady state one entry waits in ID, one response arrives and
//! one request goes out each cycle. (With two entries fetch stopped every other cycle
//! until ID took its instruction, since the entry leaving in the same cycle is not
//! counted, which keeps ID's stall logic off the request's valid: CPI 1.50 on
//! straight-line code.)

use super::bpred::Btb;
use super::core::{cause, in_region, k, Lits, Predictors, Redirects, Stage};
use super::core::{RESET_VECTOR, ROM_SIZE};
use super::params::{Predictor, RocketParams};
use hdl::{mux, Bundle, ModuleBuilder, ResetValue, Value};

/// Entries of the fetch queue, ID's included.
const QUEUE_ENTRIES: usize = 3;

/// Most I-side requests in flight.
const MAX_IN_FLIGHT: u64 = 2;

// Entries plus requests in flight are counted in 3 bits.
const _: () = assert!(QUEUE_ENTRIES as u64 + MAX_IN_FLIGHT < 8);

/// What the rest of the pipeline sees of IF.
pub(super) struct Fetch {
    /// The fetch queue; `q[0]` is the instruction in ID.
    pub q: Vec<Stage>,
    /// The next pc fetch went on to after each queue entry.
    pub q_pred: Vec<Value>,
    /// I-side requests in flight (fence.i waits for none).
    pub outstanding: Value,
    /// ID's instruction advances into EX (driven by the core).
    pub id_go: Value,
    pub predictors: Predictors,
}

/// The I-side request side of IF and what its responses carry to the queue.
struct Requests {
    q: Vec<Stage>,
    outstanding: Value,
    id_go: Value,
    fault_enq: Value,
    resp_live: Value,
    resp_pc: Value,
    resp_next: Value,
    /// The pc fetch went on to after the responding request.
    resp_pred: Value,
    resp_insn: Value,
}

/// IF: the fetch requests and the fetch queue, with the BTB's lookup when configured.
pub(super) fn fetch(
    m: &mut ModuleBuilder,
    p: &RocketParams,
    imem_req: &Bundle,
    imem_resp: &Bundle,
    l: &Lits,
    r: &Redirects,
) -> Fetch {
    let pc_f = m.reg("pc_f", l.xlen, RESET_VECTOR);
    let btb = (p.predictor == Predictor::Btb).then(|| Btb::new(m, p.btb_entries, l.xlen));
    let req = requests(m, p, &pc_f, btb.as_ref(), (imem_req, imem_resp), l, r);
    let q_pred = queue(m, &req, l, r);
    let predictors = Predictors { btb, bht: None };
    Fetch {
        q: req.q,
        q_pred,
        outstanding: req.outstanding,
        id_go: req.id_go,
        predictors,
    }
}

/// Up to [`MAX_IN_FLIGHT`] outstanding I-side requests from `pc_f`; after a redirect the
/// responses still in flight are dropped. Also creates the queue's entries (they bound
/// the fetches).
fn requests(
    m: &mut ModuleBuilder,
    p: &RocketParams,
    pc_f: &Value,
    btb: Option<&Btb>,
    (imem_req, imem_resp): (&Bundle, &Bundle),
    l: &Lits,
    r: &Redirects,
) -> Requests {
    // Memory map: the reset ROM (readable, executable) and RAM.
    let in_rom = |a: &Value| in_region(a, RESET_VECTOR, ROM_SIZE);
    let in_ram = |a: &Value| in_region(a, p.ram_base, p.ram_size);
    let outstanding = m.reg("fetch_outstanding", 2, 0u64);
    let drop = m.reg("fetch_drop", 2, 0u64);
    let q: Vec<Stage> = (0..QUEUE_ENTRIES)
        .map(|i| Stage::new(m, &format!("fq{i}"), l.xlen))
        .collect();
    // The valid entries, counted with the live requests below in 3 bits.
    let occupancy = (q.iter()).fold(k(&outstanding, 0, 3), |n, e| &n + &e.valid.zext(3));
    let live = &outstanding - &drop;
    let id_go = m.wire("id_go", 1);

    // A misprediction's redirect (from EX's registers, MEM not redirecting) requests its
    // target in the same cycle; every other redirect restarts fetch the cycle after.
    let early = &r.ex_redirect & &!&r.mem_redirect;
    let req_pc = mux(&early, &r.ex_target, pc_f);
    let pc_ok = &in_rom(&req_pc) | &in_ram(&req_pc);
    let room = (&occupancy + &live.zext(3)).lt(&k(&occupancy, QUEUE_ENTRIES as u64, 3));
    let may_fetch = &(&room & &!&r.any_redirect) & &!&r.fetch_hold;
    let slot = outstanding.lt(&k(&live, MAX_IN_FLIGHT, 2));
    m.connect(
        imem_req.valid(),
        &(&(&(&may_fetch | &(&early & &!&r.fetch_hold)) & &pc_ok) & &slot),
    );
    let ib = imem_req.bits();
    m.connect(ib.get("addr").value(), &req_pc.slice(31, 0));
    m.connect(ib.get("write").value(), &l.zero1);
    m.connect(ib.get("data").value(), &l.zero64);
    let fetch_mask = mux(&req_pc.bit(2), &k(pc_f, 0xf0, 8), &k(pc_f, 0x0f, 8));
    m.connect(ib.get("mask").value(), &fetch_mask);
    m.connect(ib.get("size").value(), &k(pc_f, 2, 3));
    let fetch_fire = imem_req.fire();
    let early_fire = &early & &fetch_fire;
    // A fetch outside memory enqueues an access fault once the live fetches are in.
    let fault_enq = &(&may_fetch & &!&pc_ok) & &live.eq(&k(&live, 0, 2));
    let resp_valid = imem_resp.valid().clone();
    let resp_live = &resp_valid & &drop.eq(&k(&drop, 0, 2));
    // The oldest live request's pc is held in a register of its own (`resp_pc`, pc_f
    // while none is live, so also the pc of a fault entry): it moves to the pc fetch
    // went on to as a live response arrives (by 4 for a fault entry), and restarts at
    // the target on a redirect, which keeps any arithmetic off the queue's pc.
    let four = &l.four;
    let pc_f_plus4 = l.adders.add(pc_f, four);
    let req_plus4 = mux(&early, &l.adders.add(&r.ex_target, four), &pc_f_plus4);
    let resp_pc = m.reg("fetch_resp_pc", l.xlen, RESET_VECTOR);
    let resp_next = l.adders.add(&resp_pc, four);
    let resp_data = imem_resp.bits().get("data").value().clone();
    let resp_insn = mux(
        &resp_pc.bit(2),
        &resp_data.slice(63, 32),
        &resp_data.slice(31, 0),
    );

    let (next_f, resp_pred) = predictions(
        m,
        btb,
        (&req_pc, &req_plus4),
        (&fetch_fire, &resp_valid, &outstanding),
    );
    let outstanding_next = &(&outstanding + &fetch_fire.zext(2)) - &resp_valid.zext(2);
    m.connect(&outstanding, &outstanding_next);
    let drop_dec = &resp_valid & &!&drop.eq(&k(&drop, 0, 2));
    m.connect(&drop, &(&drop - &drop_dec.zext(2)));
    m.when(&fetch_fire, |m| m.connect(pc_f, &next_f));
    m.when(&fault_enq, |m| m.connect(pc_f, &pc_f_plus4));
    m.when(&resp_live, |m| m.connect(&resp_pc, &resp_pred));
    m.when(&fault_enq, |m| m.connect(&resp_pc, &resp_next));
    // The requests in flight are dropped, but not one for the target.
    m.when(&r.any_redirect, |m| {
        m.connect(&drop, &(&outstanding_next - &early_fire.zext(2)));
        m.connect(pc_f, &mux(&early_fire, &next_f, &r.fetch_target));
        m.connect(&resp_pc, &r.fetch_target);
    });
    Requests {
        q,
        outstanding,
        id_go,
        fault_enq,
        resp_live,
        resp_pc,
        resp_next,
        resp_pred,
        resp_insn,
    }
}

/// The BTB's prediction for the pc being requested (`req_pc`, `req_plus4` its
/// fall-through), and the prediction of each request in flight, oldest first
/// (`MAX_IN_FLIGHT` registers, observed only while their request is: no reset). Returns
/// the pc the next request goes to after this one and the responding request's
/// prediction.
fn predictions(
    m: &mut ModuleBuilder,
    btb: Option<&Btb>,
    (req_pc, req_plus4): (&Value, &Value),
    (fire, resp, outstanding): (&Value, &Value, &Value),
) -> (Value, Value) {
    let next_f = match btb {
        Some(b) => {
            let (taken, to) = b.predict(req_pc);
            mux(&taken, &to, req_plus4)
        }
        None => req_plus4.clone(),
    };
    let preds: Vec<Value> = (0..MAX_IN_FLIGHT)
        .map(|i| m.reg(&format!("fetch_pred{i}"), req_pc.width(), ResetValue::None))
        .collect();
    // The responding request leaves the head; a new one lands behind the others.
    for (i, p) in preds.iter().enumerate().skip(1) {
        m.when(resp, |m| m.connect(&preds[i - 1], p));
    }
    let after = outstanding - &resp.zext(2);
    for (i, p) in preds.iter().enumerate() {
        let here = after.eq(&k(outstanding, i as u64, 2));
        m.when(&(fire & &here), |m| m.connect(p, &next_f));
    }
    (next_f, preds[0].clone())
}

/// The fetch queue: entries shift towards q[0] on dequeue; a new entry goes to the first
/// free. Returns each entry's predicted next pc (the BTB's, when configured).
fn queue(m: &mut ModuleBuilder, req: &Requests, l: &Lits, r: &Redirects) -> Vec<Value> {
    let (q, resp_live, resp_next) = (&req.q, &req.resp_live, &req.resp_next);
    let (zero1, one1, zero64) = (&l.zero1, &l.one1, &l.zero64);
    let squash = &r.redirect | &r.id_redirect;
    let enq = &(resp_live | &req.fault_enq) & &!&squash;
    let enq_pc = req.resp_pc.clone();
    let q_pred: Vec<Value> = (0..q.len())
        .map(|i| m.reg(&format!("fq{i}_pred"), l.xlen, ResetValue::None))
        .collect();
    // A fault entry's next pc is its pc + 4.
    let enq_pred = mux(resp_live, &req.resp_pred, resp_next);
    let enq_insn = mux(resp_live, &req.resp_insn, &zero64.slice(31, 0));
    let enq_fault = !resp_live;
    let fault_cause = k(zero64, cause::INSN_ACCESS_FAULT, 4);
    let id_go = &req.id_go;
    // The valid entries are a prefix of the queue. After a dequeue entry i takes entry
    // i + 1 (if any), and a new entry lands behind the last valid one.
    let after_deq: Vec<Value> = (0..q.len())
        .map(|i| match q.get(i + 1) {
            Some(next) => mux(id_go, &next.valid, &q[i].valid),
            None => &q[i].valid & &!id_go,
        })
        .collect();
    for (i, next) in q.iter().enumerate().skip(1) {
        m.when(&(id_go & &next.valid), |m| {
            q[i - 1].load(
                m,
                &next.pc,
                &next.insn,
                (&next.exc, &next.cause, &next.tval),
            );
            m.connect(&q_pred[i - 1], &q_pred[i]);
        });
    }
    for (e, valid) in q.iter().zip(&after_deq) {
        m.connect(&e.valid, valid);
    }
    for (i, e) in q.iter().enumerate() {
        let ahead_valid = if i == 0 {
            one1.clone()
        } else {
            after_deq[i - 1].clone()
        };
        let lands_here = &(&enq & &!&after_deq[i]) & &ahead_valid;
        m.when(&lands_here, |m| {
            m.connect(&e.valid, one1);
            e.load(m, &enq_pc, &enq_insn, (&enq_fault, &fault_cause, &enq_pc));
            m.connect(&q_pred[i], &enq_pred);
        });
    }
    m.when(&squash, |m| {
        for e in q {
            m.connect(&e.valid, zero1);
        }
    });
    q_pred
}
