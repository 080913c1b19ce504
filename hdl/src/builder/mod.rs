//! The module builder: declares ports, wires, registers, memories and instances, records
//! conditional connections, and `finish`es into an IR `Module` after lowering and checks.

mod value;

pub use value::{cat, mux, Value};

use crate::bits::{Bits, MAX_WIDTH};
use crate::bundle::{Bundle, Shape};
use crate::error::{ErrorKind, HdlError, HdlErrors, SrcLoc};
use crate::ir::*;
use std::cell::RefCell;
use std::collections::HashSet;
use std::panic::Location;
use std::rc::Rc;

/// Type of a scalar signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    U(u32),
    S(u32),
}

impl Ty {
    pub fn width(self) -> u32 {
        match self {
            Ty::U(w) | Ty::S(w) => w,
        }
    }

    pub fn signed(self) -> bool {
        matches!(self, Ty::S(_))
    }
}

impl From<u32> for Ty {
    fn from(w: u32) -> Ty {
        Ty::U(w)
    }
}

/// A conditional-connection statement, lowered to drivers by `finish`.
#[derive(Clone, Debug)]
pub(crate) enum Stmt {
    Connect {
        sig: SigId,
        node: NodeId,
    },
    When {
        cond: NodeId,
        then: Vec<Stmt>,
        otherwise: Vec<Stmt>,
    },
}

pub(crate) struct State {
    pub name: String,
    pub body: Body,
    pub locs: Locs,
    /// The `Op::Sig` node reading each signal.
    pub sig_nodes: Vec<NodeId>,
    pub names: HashSet<String>,
    /// Open statement blocks; the first is the module's top level.
    pub blocks: Vec<Vec<Stmt>>,
    /// Conjunction of the enclosing `when` conditions, for memory write enables.
    pub path: Vec<NodeId>,
    pub errors: Vec<HdlError>,
}

pub(crate) type Ctx = Rc<RefCell<State>>;

impl State {
    pub fn error(&mut self, kind: ErrorKind, what: &str, loc: SrcLoc, message: String) {
        let path = if what.is_empty() {
            self.name.clone()
        } else {
            format!("{}.{what}", self.name)
        };
        self.errors.push(HdlError {
            kind,
            path,
            loc,
            message,
        });
    }

    pub fn push_node(&mut self, op: Op, width: u32, loc: SrcLoc) -> NodeId {
        self.body.nodes.push(Node { op, width });
        self.locs.nodes.push(loc);
        (self.body.nodes.len() - 1) as NodeId
    }

    /// The signal a node reads directly, if it is a signal reference.
    pub fn node_signal(&self, node: NodeId) -> Option<SigId> {
        match self.body.nodes[node as usize].op {
            Op::Sig(s) => Some(s),
            _ => None,
        }
    }

    /// A readable description of a node for error messages.
    pub fn describe(&self, node: NodeId) -> String {
        match self.node_signal(node) {
            Some(s) => format!("`{}`", self.body.signals[s as usize].name),
            None => "expression".to_string(),
        }
    }

    fn unique_name(&mut self, base: &str) -> String {
        let name = legal_name(base);
        let mut candidate = name.clone();
        let mut n = 1;
        while self.names.contains(&candidate) {
            candidate = format!("{name}_{n}");
            n += 1;
        }
        self.names.insert(candidate.clone());
        candidate
    }

    /// Frees `base`'s legal name for a port: a wire, register, memory or instance that
    /// holds it is renamed (ports keep the names their builder gave them; a port holding
    /// it already makes the new port's name unique as any other).
    fn claim_port_name(&mut self, base: &str) {
        let name = legal_name(base);
        if !self.names.contains(&name) {
            return;
        }
        let is_port = |s: &SigKind| matches!(s, SigKind::Input | SigKind::Output);
        if let Some(i) =
            (self.body.signals.iter()).position(|s| s.name == name && !is_port(&s.kind))
        {
            self.body.signals[i].name = self.unique_name(&name);
        } else if let Some(i) = self.body.instances.iter().position(|x| x.name == name) {
            self.body.instances[i].name = self.unique_name(&name);
        } else if let Some(i) = self.body.mems.iter().position(|x| x.name == name) {
            self.body.mems[i].name = self.unique_name(&name);
        } else {
            return;
        }
        self.names.remove(&name);
    }

    fn check_width(&mut self, width: u32, what: &str, loc: SrcLoc) -> u32 {
        if width == 0 || width > MAX_WIDTH {
            self.error(
                ErrorKind::InvalidWidth,
                what,
                loc,
                format!("width {width} is outside 1..={MAX_WIDTH}"),
            );
            return 1;
        }
        width
    }

    fn add_signal(&mut self, name: &str, ty: Ty, kind: SigKind, loc: SrcLoc) -> (SigId, NodeId) {
        let width = self.check_width(ty.width(), name, loc);
        let name = self.unique_name(name);
        let id = self.body.signals.len() as SigId;
        self.body.signals.push(Signal {
            name,
            width,
            signed: ty.signed(),
            kind,
        });
        self.body.drivers.push(None);
        self.locs.signals.push(loc);
        let node = self.push_node(Op::Sig(id), width, loc);
        self.sig_nodes.push(node);
        (id, node)
    }

    /// The conjunction of the enclosing conditions (a constant 1 at the top level).
    fn path_cond(&mut self, loc: SrcLoc) -> NodeId {
        match self.path.last() {
            Some(&n) => n,
            None => self.push_node(Op::Const(Bits::from_u64(1, 1)), 1, loc),
        }
    }
}

const RESERVED: &[&str] = &[
    "clock",
    "reset",
    "always",
    "and",
    "assign",
    "begin",
    "buf",
    "case",
    "casex",
    "casez",
    "default",
    "defparam",
    "else",
    "end",
    "endcase",
    "endfunction",
    "endgenerate",
    "endmodule",
    "endtask",
    "for",
    "force",
    "forever",
    "fork",
    "function",
    "generate",
    "genvar",
    "if",
    "initial",
    "inout",
    "input",
    "integer",
    "join",
    "localparam",
    "module",
    "nand",
    "negedge",
    "nor",
    "not",
    "or",
    "output",
    "parameter",
    "posedge",
    "real",
    "reg",
    "release",
    "repeat",
    "signed",
    "specify",
    "supply0",
    "supply1",
    "task",
    "time",
    "tri",
    "wait",
    "while",
    "wire",
    "xnor",
    "xor",
    "logic",
    "bit",
    "byte",
    "int",
    "do",
    "final",
    "break",
    "continue",
    "return",
    "type",
    "struct",
    "string",
    "unique",
    "unsigned",
    "priority",
    "module_",
    "library",
    "config",
    "cell",
    "design",
    "use",
    "event",
    "automatic",
    "wor",
    "wand",
    "trireg",
    "tri0",
    "tri1",
    "triand",
    "trior",
    "cmos",
    "pmos",
    "nmos",
    "rcmos",
    "rnmos",
    "rpmos",
    "tran",
    "bufif0",
    "bufif1",
    "notif0",
    "notif1",
    "pullup",
    "pulldown",
    "highz0",
    "highz1",
    "strong0",
    "strong1",
    "weak0",
    "weak1",
    "pull0",
    "pull1",
    "small",
    "medium",
    "large",
    "scalared",
    "vectored",
    "macromodule",
    "primitive",
    "endprimitive",
    "table",
    "endtable",
    "specparam",
    "realtime",
    "disable",
    "deassign",
    "edge",
    "ifnone",
    "noshowcancelled",
    "showcancelled",
    "pulsestyle_onevent",
    "pulsestyle_ondetect",
    "endspecify",
    "endconfig",
    "incdir",
    "include",
    "instance",
    "liblist",
    "localparam",
    "rtran",
    "rtranif0",
    "rtranif1",
    "tranif0",
    "tranif1",
];

/// `base` made a legal Verilog identifier: other characters become `_`, a leading
/// non-letter gets an `n`, a reserved word a trailing `_`.
fn legal_name(base: &str) -> String {
    let mut name: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name = format!("n{name}");
    }
    if is_reserved(&name) {
        name.push('_');
    }
    name
}

fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
}

/// A memory declared in a module.
#[derive(Clone, Debug)]
pub struct Mem {
    index: u32,
    width: u32,
    depth: u64,
}

impl Mem {
    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn depth(&self) -> u64 {
        self.depth
    }

    pub fn addr_width(&self) -> u32 {
        addr_width(self.depth)
    }
}

/// A submodule instance; its ports are signals of the parent.
pub struct Inst {
    ctx: Ctx,
    index: u32,
    module: Rc<Module>,
}

impl Inst {
    /// The signal standing for the child's port `name`: connect to inputs, read outputs.
    #[track_caller]
    pub fn port(&self, name: &str) -> Value {
        let loc = Location::caller();
        let mut st = self.ctx.borrow_mut();
        let inst = &st.body.instances[self.index as usize];
        match self.module.port(name) {
            Some((i, _)) => {
                let sig = inst.ports[i];
                let s = &st.body.signals[sig as usize];
                Value::new(&self.ctx, st.sig_nodes[sig as usize], s.width, s.signed)
            }
            None => {
                let msg = format!("module `{}` has no port `{name}`", self.module.name);
                let inst_name = inst.name.clone();
                st.error(ErrorKind::UnknownPort, &inst_name, loc, msg);
                let node = st.push_node(Op::Const(Bits::zero(1)), 1, loc);
                Value::new(&self.ctx, node, 1, false)
            }
        }
    }

    /// The child's port bundle `name`, as parent-side signals.
    #[track_caller]
    pub fn io(&self, name: &str) -> Bundle {
        let bundle = self.module.body.bundles.iter().find(|b| b.name == name);
        let Some(b) = bundle else {
            return Bundle::Leaf(self.port(name));
        };
        let leaves: Vec<Value> = b
            .shape
            .leaves(name)
            .iter()
            .map(|(n, ..)| self.port(n))
            .collect();
        Bundle::from_leaves(&b.shape, &mut leaves.into_iter())
    }

    pub fn module(&self) -> &Rc<Module> {
        &self.module
    }
}

pub struct ModuleBuilder {
    ctx: Ctx,
}

/// The chain returned by `when`, for `elsewhen` and `otherwise`.
pub struct When<'a> {
    m: &'a mut ModuleBuilder,
    /// How many `elsewhen`s are already chained.
    depth: usize,
    /// Disjunction of the conditions so far.
    prior: Value,
}

impl Default for State {
    fn default() -> State {
        State {
            name: String::new(),
            body: Body {
                ports: vec![],
                bundles: vec![],
                signals: vec![],
                nodes: vec![],
                drivers: vec![],
                mems: vec![],
                instances: vec![],
                clocked: false,
            },
            locs: Locs::default(),
            sig_nodes: vec![],
            names: HashSet::new(),
            blocks: vec![vec![]],
            path: vec![],
            errors: vec![],
        }
    }
}

impl ModuleBuilder {
    pub fn new(name: &str) -> ModuleBuilder {
        let state = State {
            name: name.to_string(),
            ..State::default()
        };
        ModuleBuilder {
            ctx: Rc::new(RefCell::new(state)),
        }
    }

    pub fn name(&self) -> String {
        self.ctx.borrow().name.clone()
    }

    fn signal(&mut self, name: &str, ty: Ty, kind: SigKind, loc: SrcLoc) -> Value {
        let (_, node) = self.ctx.borrow_mut().add_signal(name, ty, kind, loc);
        let st = self.ctx.borrow();
        let w = st.body.nodes[node as usize].width;
        Value::new(&self.ctx, node, w, ty.signed())
    }

    fn port(&mut self, name: &str, ty: impl Into<Ty>, dir: Dir, loc: SrcLoc) -> Value {
        let kind = if dir == Dir::In {
            SigKind::Input
        } else {
            SigKind::Output
        };
        self.ctx.borrow_mut().claim_port_name(name);
        let v = self.signal(name, ty.into(), kind, loc);
        let mut st = self.ctx.borrow_mut();
        let sig = st.node_signal(v.node()).expect("port node");
        let name = st.body.signals[sig as usize].name.clone();
        st.body.ports.push(Port { name, dir, sig });
        v
    }

    #[track_caller]
    pub fn input(&mut self, name: &str, ty: impl Into<Ty>) -> Value {
        self.port(name, ty, Dir::In, Location::caller())
    }

    #[track_caller]
    pub fn output(&mut self, name: &str, ty: impl Into<Ty>) -> Value {
        self.port(name, ty, Dir::Out, Location::caller())
    }

    /// Ports for every leaf of `shape` (named `name_field_...`); `dir` is the direction of
    /// unflipped fields.
    #[track_caller]
    /// Records that ports already made form `bundle` (`helpers::expose`).
    pub(crate) fn register_bundle(&mut self, bundle: PortBundle) {
        self.ctx.borrow_mut().body.bundles.push(bundle);
    }

    pub fn io(&mut self, name: &str, dir: Dir, shape: &Shape) -> Bundle {
        let loc = Location::caller();
        let leaves: Vec<Value> = shape
            .leaves(name)
            .into_iter()
            .map(|(n, w, s, flipped)| {
                let ty = if s { Ty::S(w) } else { Ty::U(w) };
                self.port(&n, ty, if flipped { dir.flip() } else { dir }, loc)
            })
            .collect();
        self.ctx.borrow_mut().body.bundles.push(PortBundle {
            name: name.to_string(),
            dir,
            shape: shape.clone(),
        });
        Bundle::from_leaves(shape, &mut leaves.into_iter())
    }

    #[track_caller]
    pub fn wire(&mut self, name: &str, ty: impl Into<Ty>) -> Value {
        self.signal(name, ty.into(), SigKind::Wire, Location::caller())
    }

    /// Wires for every leaf of `shape`.
    #[track_caller]
    pub fn wire_bundle(&mut self, name: &str, shape: &Shape) -> Bundle {
        let loc = Location::caller();
        let leaves: Vec<Value> = shape
            .leaves(name)
            .into_iter()
            .map(|(n, w, s, _)| {
                self.signal(&n, if s { Ty::S(w) } else { Ty::U(w) }, SigKind::Wire, loc)
            })
            .collect();
        Bundle::from_leaves(shape, &mut leaves.into_iter())
    }

    /// Registers for every leaf of `shape`, reset to zero (pipeline stages of bundles).
    #[track_caller]
    pub fn reg_bundle(&mut self, name: &str, shape: &Shape) -> Bundle {
        self.bundle_of_regs(name, shape, || ResetValue::Int(0), Location::caller())
    }

    /// A bundle of datapath registers without reset ([`ResetValue::None`]).
    #[track_caller]
    pub fn reg_bundle_no_reset(&mut self, name: &str, shape: &Shape) -> Bundle {
        self.bundle_of_regs(name, shape, || ResetValue::None, Location::caller())
    }

    fn bundle_of_regs(
        &mut self,
        name: &str,
        shape: &Shape,
        reset: impl Fn() -> ResetValue,
        loc: SrcLoc,
    ) -> Bundle {
        let leaves: Vec<Value> = shape
            .leaves(name)
            .into_iter()
            .map(|(n, w, s, _)| {
                let ty = if s { Ty::S(w) } else { Ty::U(w) };
                self.make_reg(&n, ty, reset(), None, loc)
            })
            .collect();
        Bundle::from_leaves(shape, &mut leaves.into_iter())
    }

    /// A register with synchronous reset to `reset`; it holds its value unless connected.
    #[track_caller]
    pub fn reg(&mut self, name: &str, ty: impl Into<Ty>, reset: impl Into<ResetValue>) -> Value {
        self.make_reg(name, ty.into(), reset.into(), None, Location::caller())
    }

    /// A register that updates only when `enable` is high (reset still applies).
    #[track_caller]
    pub fn reg_en(
        &mut self,
        name: &str,
        ty: impl Into<Ty>,
        reset: impl Into<ResetValue>,
        enable: &Value,
    ) -> Value {
        let loc = Location::caller();
        let en = self.scalar_operand(enable, "register enable", loc);
        self.make_reg(name, ty.into(), reset.into(), Some(en), loc)
    }

    fn make_reg(
        &mut self,
        name: &str,
        ty: Ty,
        reset: ResetValue,
        enable: Option<NodeId>,
        loc: SrcLoc,
    ) -> Value {
        let width = ty.width().clamp(1, MAX_WIDTH);
        let reset = match reset {
            ResetValue::None => None,
            ResetValue::Int(v) => {
                let b = Bits::from_u64(width, v as u64);
                let fits = if ty.signed() {
                    v >= -(1i128 << (width - 1).min(126)) && v < (1i128 << (width - 1).min(126))
                } else {
                    v >= 0 && (width >= 64 || (v as u128) < (1u128 << width))
                };
                if !fits {
                    self.ctx.borrow_mut().error(
                        ErrorKind::InvalidParameter,
                        name,
                        loc,
                        format!("reset value {v} does not fit in {width} bits"),
                    );
                }
                Some(if v < 0 {
                    let mut words = vec![u64::MAX; crate::bits::words_for(width)];
                    words[0] = v as u64;
                    Bits::from_words(width, &words)
                } else {
                    b
                })
            }
            ResetValue::Bits(b) => {
                if b.width() != width {
                    self.ctx.borrow_mut().error(
                        ErrorKind::WidthMismatch,
                        name,
                        loc,
                        format!("reset value is {} bits, register is {width}", b.width()),
                    );
                }
                Some(Bits::from_words(width, b.words()))
            }
        };
        self.signal(name, ty, SigKind::Reg { reset, enable }, loc)
    }

    /// A constant of `width` bits (the value must fit).
    #[track_caller]
    pub fn lit(&mut self, value: u64, width: u32) -> Value {
        let loc = Location::caller();
        let mut st = self.ctx.borrow_mut();
        let width = st.check_width(width, "", loc);
        if width < 64 && value >> width != 0 {
            st.error(
                ErrorKind::InvalidParameter,
                "",
                loc,
                format!("literal {value} does not fit in {width} bits"),
            );
        }
        let node = st.push_node(Op::Const(Bits::from_u64(width, value)), width, loc);
        drop(st);
        Value::new(&self.ctx, node, width, false)
    }

    /// A signed constant of `width` bits.
    #[track_caller]
    pub fn slit(&mut self, value: i64, width: u32) -> Value {
        let loc = Location::caller();
        let w = width.clamp(1, MAX_WIDTH);
        let fits = w >= 64 || (value >= -(1i64 << (w - 1)) && value < (1i64 << (w - 1)));
        if !fits {
            self.ctx.borrow_mut().error(
                ErrorKind::InvalidParameter,
                "",
                loc,
                format!("literal {value} does not fit in {w} signed bits"),
            );
        }
        let mut words = vec![if value < 0 { u64::MAX } else { 0 }; crate::bits::words_for(w)];
        words[0] = value as u64;
        self.lit_bits(Bits::from_words(w, &words)).as_signed()
    }

    #[track_caller]
    pub fn lit_bits(&mut self, value: Bits) -> Value {
        let loc = Location::caller();
        let width = value.width();
        let mut st = self.ctx.borrow_mut();
        let width = st.check_width(width, "", loc);
        let node = st.push_node(Op::Const(value), width, loc);
        drop(st);
        Value::new(&self.ctx, node, width, false)
    }

    fn scalar_operand(&mut self, v: &Value, what: &str, loc: SrcLoc) -> NodeId {
        let node = v.node_in(&self.ctx, loc);
        if v.width() != 1 {
            self.ctx.borrow_mut().error(
                ErrorKind::WidthMismatch,
                "",
                loc,
                format!("{what} must be 1 bit, is {}", v.width()),
            );
        }
        node
    }

    /// `dst := src` under the enclosing conditions; the last connection wins.
    #[track_caller]
    pub fn connect(&mut self, dst: &Value, src: &Value) {
        let loc = Location::caller();
        let src_node = src.node_in(&self.ctx, loc);
        let dst_node = dst.node_in(&self.ctx, loc);
        let mut st = self.ctx.borrow_mut();
        let Some(sig) = st.node_signal(dst_node) else {
            st.error(
                ErrorKind::MultipleDrivers,
                "",
                loc,
                "connection target is an expression, not a signal".into(),
            );
            return;
        };
        let s = st.body.signals[sig as usize].clone();
        let driven_elsewhere = match s.kind {
            SigKind::Input => Some("an input port"),
            SigKind::InstOut { .. } => Some("an instance output"),
            SigKind::MemData { .. } => Some("memory read data"),
            _ => None,
        };
        if let Some(what) = driven_elsewhere {
            st.error(
                ErrorKind::MultipleDrivers,
                &s.name,
                loc,
                format!("`{}` is {what}, already driven", s.name),
            );
            return;
        }
        if src.width() != s.width {
            let msg = format!(
                "connecting a {}-bit {} to {}-bit `{}`",
                src.width(),
                st.describe(src_node),
                s.width,
                s.name
            );
            st.error(ErrorKind::WidthMismatch, &s.name, loc, msg);
        } else if src.is_signed() != s.signed {
            let sign = |b: bool| if b { "signed" } else { "unsigned" };
            let msg = format!(
                "connecting {} {} to {} `{}`",
                sign(src.is_signed()),
                st.describe(src_node),
                sign(s.signed),
                s.name
            );
            st.error(ErrorKind::TypeMismatch, &s.name, loc, msg);
        }
        // Recorded even when mistyped, so the signal is not also reported as undriven.
        st.blocks.last_mut().expect("block").push(Stmt::Connect {
            sig,
            node: src_node,
        });
    }

    /// Connects bundles field by field: unflipped leaves `dst := src`, flipped `src := dst`.
    #[track_caller]
    pub fn connect_bundle(&mut self, dst: &Bundle, src: &Bundle) {
        let (d, s) = (dst.leaves(), src.leaves());
        if d.len() != s.len()
            || d.iter()
                .zip(&s)
                .any(|((a, fa), (b, fb))| fa != fb || a.width() != b.width())
        {
            let loc = Location::caller();
            self.ctx.borrow_mut().error(
                ErrorKind::WidthMismatch,
                "",
                loc,
                format!(
                    "bundles of different shapes ({} and {} leaves)",
                    d.len(),
                    s.len()
                ),
            );
            return;
        }
        for ((dv, flipped), (sv, _)) in d.into_iter().zip(s) {
            if flipped {
                self.connect(sv, dv);
            } else {
                self.connect(dv, sv);
            }
        }
    }

    /// Drives every unflipped leaf of `dst` with zero: an unused input bundle of an
    /// instance (a port nothing is attached to) held idle.
    #[track_caller]
    pub fn tie_off(&mut self, dst: &Bundle) {
        for (leaf, flipped) in dst.leaves() {
            if !flipped {
                let zero = self.lit(0, leaf.width());
                self.connect(leaf, &zero);
            }
        }
    }

    fn run_block(&mut self, path: NodeId, body: impl FnOnce(&mut ModuleBuilder)) -> Vec<Stmt> {
        {
            let mut st = self.ctx.borrow_mut();
            st.blocks.push(vec![]);
            st.path.push(path);
        }
        body(self);
        let mut st = self.ctx.borrow_mut();
        st.path.pop();
        st.blocks.pop().expect("block")
    }

    /// The current path condition ANDed with `cond`.
    fn nested_path(&mut self, cond: &Value, loc: SrcLoc) -> Value {
        let outer = self.ctx.borrow().path.last().copied();
        match outer {
            Some(p) => {
                let w = 1;
                Value::new(&self.ctx, p, w, false).and_at(cond, loc)
            }
            None => cond.clone(),
        }
    }

    /// Connections made in `body` apply only while `cond` is high.
    #[track_caller]
    pub fn when(&mut self, cond: &Value, body: impl FnOnce(&mut ModuleBuilder)) -> When<'_> {
        let loc = Location::caller();
        let c = self.scalar_operand(cond, "`when` condition", loc);
        let path = self.nested_path(cond, loc);
        let then = self.run_block(path.node(), body);
        self.ctx
            .borrow_mut()
            .blocks
            .last_mut()
            .expect("block")
            .push(Stmt::When {
                cond: c,
                then,
                otherwise: vec![],
            });
        When {
            m: self,
            depth: 0,
            prior: cond.clone(),
        }
    }

    fn chain_slot(&mut self, depth: usize, f: impl FnOnce(&mut Vec<Stmt>)) {
        let mut st = self.ctx.borrow_mut();
        let mut stmt = st.blocks.last_mut().and_then(|b| b.last_mut());
        for _ in 0..depth {
            stmt = match stmt {
                Some(Stmt::When { otherwise, .. }) => otherwise.last_mut(),
                _ => None,
            };
        }
        match stmt {
            Some(Stmt::When { otherwise, .. }) => f(otherwise),
            _ => unreachable!("a When chain always ends in the statement it created"),
        }
    }

    /// A memory of `depth` words of `width` bits.
    #[track_caller]
    pub fn mem(&mut self, name: &str, depth: u64, width: u32, style: MemStyle) -> Mem {
        let loc = Location::caller();
        let mut st = self.ctx.borrow_mut();
        let width = st.check_width(width, name, loc);
        if depth == 0 {
            st.error(
                ErrorKind::InvalidParameter,
                name,
                loc,
                "memory depth must be at least 1".into(),
            );
        }
        let name = st.unique_name(name);
        st.body.mems.push(Memory {
            name,
            depth: depth.max(1),
            width,
            style,
            reads: vec![],
            writes: vec![],
            init: None,
        });
        st.locs.mems.push(loc);
        Mem {
            index: (st.body.mems.len() - 1) as u32,
            width,
            depth: depth.max(1),
        }
    }

    /// Preloads `mem` with `words` (from address 0; the rest start at zero), through the
    /// hex file `file` the emitter writes beside the Verilog and the Verilog loads with
    /// `$readmemh` at time zero: simulators, FPGA synthesis and the IR simulator honour
    /// it, ASIC synthesis ignores it. Inferred memories of at most 64-bit words only (an
    /// SRAM macro has no initial contents).
    #[track_caller]
    pub fn mem_init(&mut self, mem: &Mem, file: &str, words: Vec<u64>) {
        let loc = Location::caller();
        let mut st = self.ctx.borrow_mut();
        let m = &st.body.mems[mem.index as usize];
        let fits = words.len() as u64 <= m.depth
            && (m.width >= 64 || words.iter().all(|w| w >> m.width == 0));
        let problem = if m.style == MemStyle::Sram {
            Some("SRAM macros cannot be preloaded; use an inferred memory")
        } else if m.width > 64 {
            Some("only memories of at most 64-bit words can be preloaded")
        } else if !fits {
            Some("the initial words do not fit the memory's depth and width")
        } else if file.is_empty() || file.contains(['"', '\\', '\n', '/']) {
            Some("the init file name must be a plain non-empty file name (no quotes, slashes, backslashes or newlines)")
        } else {
            None
        };
        match problem {
            Some(msg) => {
                let name = m.name.clone();
                st.error(ErrorKind::InvalidParameter, &name, loc, msg.into());
            }
            None => {
                st.body.mems[mem.index as usize].init = Some(MemInit {
                    file: file.to_string(),
                    words: Rc::new(words),
                })
            }
        }
    }

    fn addr_operand(&mut self, mem: &Mem, addr: &Value, loc: SrcLoc) -> NodeId {
        let node = addr.node_in(&self.ctx, loc);
        if addr.width() != mem.addr_width() {
            let mut st = self.ctx.borrow_mut();
            let name = st.body.mems[mem.index as usize].name.clone();
            let msg = format!(
                "address is {} bits, memory of depth {} needs {}",
                addr.width(),
                mem.depth,
                mem.addr_width()
            );
            st.error(ErrorKind::WidthMismatch, &name, loc, msg);
        }
        node
    }

    /// A combinational read port.
    #[track_caller]
    pub fn read(&mut self, mem: &Mem, addr: &Value) -> Value {
        let loc = Location::caller();
        let a = self.addr_operand(mem, addr, loc);
        let mut st = self.ctx.borrow_mut();
        if st.body.mems[mem.index as usize].style == MemStyle::Sram {
            let name = st.body.mems[mem.index as usize].name.clone();
            st.error(
                ErrorKind::InvalidParameter,
                &name,
                loc,
                "SRAM macros have synchronous read ports only; use `read_sync`".into(),
            );
        }
        let m = &mut st.body.mems[mem.index as usize];
        m.reads.push(ReadPort {
            addr: a,
            sync: None,
        });
        let port = (m.reads.len() - 1) as u32;
        let node = st.push_node(
            Op::MemRead {
                mem: mem.index,
                port,
            },
            mem.width,
            loc,
        );
        drop(st);
        Value::new(&self.ctx, node, mem.width, false)
    }

    /// A synchronous read port: data appears the cycle after `en`, and holds otherwise.
    #[track_caller]
    pub fn read_sync(&mut self, mem: &Mem, addr: &Value, en: &Value) -> Value {
        let loc = Location::caller();
        let a = self.addr_operand(mem, addr, loc);
        let e = self.scalar_operand(en, "read enable", loc);
        let name = format!(
            "{}_rdata",
            self.ctx.borrow().body.mems[mem.index as usize].name
        );
        let port = self.ctx.borrow().body.mems[mem.index as usize].reads.len() as u32;
        let data = self.signal(
            &name,
            Ty::U(mem.width),
            SigKind::MemData {
                mem: mem.index,
                port,
            },
            loc,
        );
        let mut st = self.ctx.borrow_mut();
        let sig = st.node_signal(data.node()).expect("data signal");
        st.body.mems[mem.index as usize].reads.push(ReadPort {
            addr: a,
            sync: Some(SyncRead { en: e, data: sig }),
        });
        data
    }

    /// A write port, enabled under the enclosing `when` conditions.
    #[track_caller]
    pub fn write(&mut self, mem: &Mem, addr: &Value, data: &Value) {
        self.write_port(mem, addr, data, None, Location::caller())
    }

    /// A write port with a byte (or other granule) mask: `mask` has one bit per
    /// `width / mask.width()` data bits.
    #[track_caller]
    pub fn write_masked(&mut self, mem: &Mem, addr: &Value, data: &Value, mask: &Value) {
        self.write_port(mem, addr, data, Some(mask), Location::caller())
    }

    fn write_port(
        &mut self,
        mem: &Mem,
        addr: &Value,
        data: &Value,
        mask: Option<&Value>,
        loc: SrcLoc,
    ) {
        let a = self.addr_operand(mem, addr, loc);
        let d = data.node_in(&self.ctx, loc);
        let mask_node = mask.map(|m| m.node_in(&self.ctx, loc));
        let mut st = self.ctx.borrow_mut();
        let en = st.path_cond(loc);
        let name = st.body.mems[mem.index as usize].name.clone();
        if data.width() != mem.width {
            st.error(
                ErrorKind::WidthMismatch,
                &name,
                loc,
                format!(
                    "write data is {} bits, memory is {}",
                    data.width(),
                    mem.width
                ),
            );
        }
        let mut mask_gran = mem.width;
        if let Some(m) = mask {
            if m.width() == 0 || !mem.width.is_multiple_of(m.width()) {
                st.error(
                    ErrorKind::WidthMismatch,
                    &name,
                    loc,
                    format!(
                        "a {}-bit mask does not divide {}-bit words",
                        m.width(),
                        mem.width
                    ),
                );
            } else {
                mask_gran = mem.width / m.width();
            }
        }
        st.body.mems[mem.index as usize].writes.push(WritePort {
            addr: a,
            data: d,
            en,
            mask: mask_node,
            mask_gran,
        });
    }

    /// Instantiates `module`; connect every input through `Inst::port`/`Inst::io`.
    #[track_caller]
    pub fn instance(&mut self, name: &str, module: &Rc<Module>) -> Inst {
        let loc = Location::caller();
        let mut st = self.ctx.borrow_mut();
        let inst_name = st.unique_name(name);
        let index = st.body.instances.len() as u32;
        let ports = module
            .body
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let s = module.signal(p.sig);
                let kind = match p.dir {
                    Dir::In => SigKind::InstIn {
                        inst: index,
                        port: i as u32,
                    },
                    Dir::Out => SigKind::InstOut {
                        inst: index,
                        port: i as u32,
                    },
                };
                let ty = if s.signed {
                    Ty::S(s.width)
                } else {
                    Ty::U(s.width)
                };
                st.add_signal(&format!("{inst_name}_{}", p.name), ty, kind, loc)
                    .0
            })
            .collect();
        st.body.instances.push(Instance {
            name: inst_name,
            module: module.clone(),
            ports,
        });
        st.locs.instances.push(loc);
        drop(st);
        Inst {
            ctx: self.ctx.clone(),
            index,
            module: module.clone(),
        }
    }

    /// Lowers the conditional connections, runs the checks, and returns the module.
    pub fn finish(self) -> Result<Rc<Module>, HdlErrors> {
        // Values may outlive the builder; they keep an emptied state that nothing reads.
        let state = self.ctx.take();
        crate::lower::finish(state)
    }
}

/// A register's reset value: an integer (negative for signed registers), explicit bits,
/// or none: a datapath register (pipeline data, queue entries, read data) that holds an
/// arbitrary value until it is first written, for state only observed under a valid bit.
pub enum ResetValue {
    Int(i128),
    Bits(Bits),
    None,
}

impl From<u64> for ResetValue {
    fn from(v: u64) -> Self {
        ResetValue::Int(v as i128)
    }
}

impl From<i64> for ResetValue {
    fn from(v: i64) -> Self {
        ResetValue::Int(v as i128)
    }
}

impl From<i32> for ResetValue {
    fn from(v: i32) -> Self {
        ResetValue::Int(v as i128)
    }
}

impl From<bool> for ResetValue {
    fn from(v: bool) -> Self {
        ResetValue::Int(v as i128)
    }
}

impl From<Bits> for ResetValue {
    fn from(b: Bits) -> Self {
        ResetValue::Bits(b)
    }
}

impl<'a> When<'a> {
    #[track_caller]
    pub fn elsewhen(self, cond: &Value, body: impl FnOnce(&mut ModuleBuilder)) -> When<'a> {
        let loc = Location::caller();
        let m = self.m;
        let c = m.scalar_operand(cond, "`elsewhen` condition", loc);
        let fresh = (!&self.prior).and_at(cond, loc);
        let path = m.nested_path(&fresh, loc);
        let then = m.run_block(path.node(), body);
        m.chain_slot(self.depth, |otherwise| {
            otherwise.push(Stmt::When {
                cond: c,
                then,
                otherwise: vec![],
            })
        });
        let prior = self.prior.or_at(cond, loc);
        When {
            m,
            depth: self.depth + 1,
            prior,
        }
    }

    #[track_caller]
    pub fn otherwise(self, body: impl FnOnce(&mut ModuleBuilder)) {
        let loc = Location::caller();
        let m = self.m;
        let path = m.nested_path(&!&self.prior, loc);
        let stmts = m.run_block(path.node(), body);
        m.chain_slot(self.depth, |otherwise| *otherwise = stmts);
    }
}
