//! The BBS's thread injectors (seed 004 section 3.2, Figure 5; spec 004 section 2.2):
//! one a CVU. The BBS deals each thread batch packet (a word of the CVT, a 64-bit
//! bitmap over 64 consecutive threads of the tile) to an idle injector of an active CVU;
//! the injector sends its threads to the CVU one a cycle, lowest bit first, each with its
//! thread ID and its initial stack pointer (`stack_top - tid * stack_bytes`, as the
//! FG-SIMT engine gives a thread: the batch's once at dealing, `index * stack_bytes` less
//! per thread).

use crate::vgiw::units::cvu::inject_shape;
use hdl::helpers::{lowest_one, onehot_encode};
use hdl::{Bits, Bundle, Dir, ModuleBuilder, Value};

/// A batch as the dealer hands it to an injector.
pub struct Batch {
    /// Whether the injector takes it this cycle.
    pub load: Value,
    /// The batch's first thread ID (its word's) and that thread's stack pointer.
    pub tid: Value,
    pub sp: Value,
    pub bitmap: Value,
}

/// Injector `i`: its `cvu{i}_inject` port; returns whether it is idle.
pub fn injector(m: &mut ModuleBuilder, i: usize, batch: &Batch, stack_bytes: &Value) -> Value {
    let inject: Bundle = m.io(&format!("cvu{i}_inject"), Dir::Out, &inject_shape());
    let reg = |m: &mut ModuleBuilder, name: &str, v: &Value| {
        m.reg(&format!("inj{i}_{name}"), v.width(), Bits::zero(v.width()))
    };
    let tid = reg(m, "tid", &batch.tid);
    let sp = reg(m, "sp", &batch.sp);
    let bitmap = reg(m, "bitmap", &batch.bitmap);
    let busy = bitmap.or_r();
    let low = lowest_one(&bitmap);
    let index = onehot_encode(&low);
    let wide = |v: &Value| v.zext(tid.width());
    m.connect(inject.valid(), &busy);
    m.connect(inject.bits().get("tid").value(), &(&tid + &wide(&index)));
    let offset = index.mul(stack_bytes).trunc(sp.width());
    m.connect(inject.bits().get("sp").value(), &(&sp - &offset));
    let left = &bitmap & &!&(&low & &inject.fire().repeat(bitmap.width()));
    m.connect(&bitmap, &batch.load.mux(&batch.bitmap, &left));
    m.when(&batch.load, |m| {
        m.connect(&tid, &batch.tid);
        m.connect(&sp, &batch.sp);
    });
    !&busy
}
