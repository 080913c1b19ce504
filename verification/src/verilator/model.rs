//! A loaded model and the API that drives it.

use super::build::{self, LIBRARY};
use super::source::{self, ABI_VERSION};
use super::{Error, Interface, Options, Part, PortSpec, INIT_SEEDS};
use hdl::bits::words_for;
use hdl::sim::Init;
use hdl::{Bits, Design, Dir};
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CString};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The shim's functions (see `templates/verilator_shim.cpp`).
#[derive(Clone, Copy)]
struct Abi {
    new: unsafe extern "C" fn(u32, u64) -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void),
    port_data: unsafe extern "C" fn(*mut c_void, u32) -> *mut c_void,
    eval: unsafe extern "C" fn(*mut c_void),
    step: unsafe extern "C" fn(*mut c_void, u64, bool),
    trace_open: unsafe extern "C" fn(*mut c_void, *const c_char) -> i32,
    trace_close: unsafe extern "C" fn(*mut c_void),
}

/// Loads a model library once per process and keeps it loaded: unloading Verilator's
/// runtime while its thread-local state may still be referenced is not safe, and a
/// process loads few distinct models.
fn load(dir: &Path, ports: &[PortSpec]) -> Result<Abi, Error> {
    static LOADED: Mutex<Option<HashMap<PathBuf, Abi>>> = Mutex::new(None);
    let path = dir.join(LIBRARY);
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    let loaded = loaded.get_or_insert_with(HashMap::new);
    if let Some(abi) = loaded.get(&path) {
        return Ok(*abi);
    }
    let load_err = |e: libloading::Error| Error::Load {
        path: path.clone(),
        message: e.to_string(),
    };
    // SAFETY: the library is one this module built from its own shim; loading runs only
    // the static constructors of Verilator's runtime and the model.
    let lib = unsafe { libloading::Library::new(&path) }.map_err(load_err)?;
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
    // SAFETY (every `get`): the symbol types are those the shim template declares; the ABI
    // version, checked first, guards against libraries from other shim versions.
    macro_rules! sym {
        ($name:literal) => {
            *unsafe { lib.get($name) }.map_err(load_err)?
        };
    }
    let abi_version: unsafe extern "C" fn() -> u32 = sym!(b"model_abi_version\0");
    let port_count: unsafe extern "C" fn() -> u32 = sym!(b"model_port_count\0");
    let port_width: unsafe extern "C" fn(u32) -> u32 = sym!(b"model_port_width\0");
    let mismatch = |message: String| Error::Mismatch {
        path: path.clone(),
        message,
    };
    // SAFETY: these take no pointers and only read constants.
    let version = unsafe { abi_version() };
    if version != ABI_VERSION {
        return Err(mismatch(format!(
            "ABI version {version}, expected {ABI_VERSION}"
        )));
    }
    let count = unsafe { port_count() } as usize;
    if count != ports.len() {
        return Err(mismatch(format!("{count} ports, expected {}", ports.len())));
    }
    for (i, p) in ports.iter().enumerate() {
        let w = unsafe { port_width(i as u32) };
        if w != p.width {
            return Err(mismatch(format!(
                "port {} is {w} bits, expected {}",
                p.name, p.width
            )));
        }
    }
    let abi = Abi {
        new: sym!(b"model_new\0"),
        free: sym!(b"model_free\0"),
        port_data: sym!(b"model_port_data\0"),
        eval: sym!(b"model_eval\0"),
        step: sym!(b"model_step\0"),
        trace_open: sym!(b"model_trace_open\0"),
        trace_close: sym!(b"model_trace_close\0"),
    };
    loaded.insert(path, abi);
    Ok(abi)
}

/// FNV-1a: port names are short and trusted, so the lookups behind every poke and peek by
/// name need no DoS-resistant (and several times slower) SipHash.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
}

/// A port of a model, resolved once for repeated pokes and peeks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PortId(u32);

/// How the model's library was obtained.
#[derive(Clone, Debug)]
pub struct BuildInfo {
    /// The cache entry: the library, the Verilog and shim it was built from, and
    /// Verilator's log.
    pub dir: PathBuf,
    /// Whether the library was already in the cache.
    pub cached: bool,
    /// Seconds spent verilating and compiling (0 when cached).
    pub seconds: f64,
}

/// Where a port's value lives in the model, and how it is stored there: Verilator's
/// C++ type for the width (`CData`, `SData`, `IData`, `QData`: one unsigned integer of 8,
/// 16, 32 or 64 bits; `VlWide<N>`: N 32-bit words, least significant first). The shim
/// checks at compile time that every port has the type its width implies.
struct PortData {
    ptr: *mut c_void,
    width: u32,
}

impl PortData {
    /// Stores a value given as 64-bit limbs (as many as the width needs, no bits set above
    /// it).
    ///
    /// SAFETY: `ptr` must point at the live port of this width.
    #[inline]
    unsafe fn store(&self, words: &[u64]) {
        let p = self.ptr;
        match self.width {
            0..=8 => p.cast::<u8>().write(words[0] as u8),
            9..=16 => p.cast::<u16>().write(words[0] as u16),
            17..=32 => p.cast::<u32>().write(words[0] as u32),
            33..=64 => p.cast::<u64>().write(words[0]),
            w => {
                for i in 0..w.div_ceil(32) as usize {
                    p.cast::<u32>()
                        .add(i)
                        .write((words[i / 2] >> (32 * (i % 2))) as u32);
                }
            }
        }
    }

    /// The low 64 bits of the value.
    ///
    /// SAFETY: as for `store`.
    #[inline]
    unsafe fn low_u64(&self) -> u64 {
        if self.width <= 64 {
            let mut low = [0];
            self.load(&mut low);
            low[0]
        } else {
            let p = self.ptr.cast::<u32>();
            (u64::from(p.add(1).read()) << 32) | u64::from(p.read())
        }
    }

    /// The value as 64-bit limbs, into `words` (as many as the width needs).
    ///
    /// SAFETY: as for `store`.
    #[inline]
    unsafe fn load(&self, words: &mut [u64]) {
        let p = self.ptr;
        match self.width {
            0..=8 => words[0] = p.cast::<u8>().read().into(),
            9..=16 => words[0] = p.cast::<u16>().read().into(),
            17..=32 => words[0] = p.cast::<u32>().read().into(),
            33..=64 => words[0] = p.cast::<u64>().read(),
            w => {
                let n = w.div_ceil(32) as usize;
                for (i, word) in words[..n.div_ceil(2)].iter_mut().enumerate() {
                    let lo = u64::from(p.cast::<u32>().add(2 * i).read());
                    let hi = if 2 * i + 1 < n {
                        u64::from(p.cast::<u32>().add(2 * i + 1).read())
                    } else {
                        0
                    };
                    *word = (hi << 32) | lo;
                }
            }
        }
    }
}

/// A Verilator model in this process. Semantics match `hdl::sim::Sim`: poked inputs
/// settle combinationally before a peek, `step` is one rising clock edge, and `reset` is
/// an ordinary input. State starts at pseudo-random values ([`Init::Random`] with the
/// first of [`super::INIT_SEEDS`]; [`Model::reinit`] chooses another start), so a test
/// proves the design observes nothing before writing or resetting it; ports start at zero.
///
/// Pokes and peeks access the model's port variables directly; only evaluation and clock
/// edges cross into C++, so that driving a model costs little more than a C++ testbench.
pub struct Model {
    abi: Abi,
    handle: *mut c_void,
    ports: Vec<PortSpec>,
    data: Vec<PortData>,
    by_name: HashMap<String, u32, BuildHasherDefault<Fnv>>,
    info: BuildInfo,
    cycle: u64,
    /// Inputs changed since the last evaluation.
    dirty: bool,
    /// Limbs of the widest port, reused by every poke and peek.
    scratch: Vec<u64>,
    /// The state the model started from, and whether an input changed since.
    init: Init,
    poked: bool,
}

impl Model {
    /// Builds (or takes from the cache) and loads a model of `parts` side by side.
    pub fn build(parts: &[Part], opts: &Options) -> Result<Model, Error> {
        let src = source::generate(parts, opts.trace, opts.threads)?;
        let built = build::build(&src, opts)?;
        let abi = load(&built.dir, &src.ports)?;
        let init = Init::Random {
            seed: INIT_SEEDS[0],
        };
        let (handle, data) = create(&abi, &src.ports, init)?;
        let by_name = src
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), i as u32))
            .collect();
        let widest = src.ports.iter().map(|p| p.width).max().unwrap_or(1);
        Ok(Model {
            abi,
            handle,
            data,
            by_name,
            info: BuildInfo {
                dir: built.dir,
                cached: built.cached,
                seconds: built.seconds,
            },
            cycle: 0,
            dirty: true,
            scratch: vec![0; words_for(widest)],
            ports: src.ports,
            init,
            poked: false,
        })
    }

    /// A model of an elaborated design, its ports named as on its top module.
    pub fn of_design(design: &Design, opts: &Options) -> Result<Model, Error> {
        let emitted = hdl::emit::emit(design, &hdl::emit::EmitOptions::default());
        let verilog = emitted.single_file();
        Model::build(
            &[Part {
                verilog: &verilog,
                interface: Interface::of(design.top()),
                prefix: String::new(),
            }],
            opts,
        )
    }

    /// Starts test case `case` over from a random initial state, the cases alternating
    /// [`INIT_SEEDS`] (so both are covered without extra runs), then holds `reset` for a
    /// cycle.
    pub fn restart(&mut self, case: u64) -> Result<(), Error> {
        self.reinit(Init::Random {
            seed: INIT_SEEDS[(case % 2) as usize],
        })?;
        self.poke_u64("reset", 1)?;
        self.step();
        self.poke_u64("reset", 0)
    }

    /// Starts over from `init`: a new instance of the model (every register, memory and
    /// port as `init` says; cycle 0; an open waveform is closed).
    pub fn reinit(&mut self, init: Init) -> Result<(), Error> {
        // A model untouched since it started from `init` is already there (and keeps an
        // open waveform).
        if self.init == init && self.cycle == 0 && !self.poked {
            return Ok(());
        }
        let (handle, data) = create(&self.abi, &self.ports, init)?;
        self.close_trace();
        // SAFETY: the old handle came from `new` and is freed once; it is replaced below.
        unsafe { (self.abi.free)(self.handle) }
        self.handle = handle;
        self.data = data;
        self.init = init;
        self.cycle = 0;
        self.dirty = true;
        self.poked = false;
        Ok(())
    }

    pub fn build_info(&self) -> &BuildInfo {
        &self.info
    }

    /// Every port but the clock, in order.
    pub fn ports(&self) -> &[PortSpec] {
        &self.ports
    }

    #[inline]
    pub fn port(&self, name: &str) -> Result<PortId, Error> {
        self.by_name
            .get(name)
            .map(|&i| PortId(i))
            .ok_or_else(|| Error::NoPort(name.to_string()))
    }

    /// Rising clock edges so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The port `id`, checked to belong to this model.
    #[inline]
    fn checked(&self, id: PortId) -> Result<&PortSpec, Error> {
        self.ports.get(id.0 as usize).ok_or_else(|| no_port(id))
    }

    /// The input `id`, checked to belong to this model.
    #[inline]
    fn input(&self, id: PortId) -> Result<&PortSpec, Error> {
        let p = self.checked(id)?;
        if p.dir != Dir::In {
            return Err(not_an_input(p));
        }
        Ok(p)
    }

    pub fn poke_id(&mut self, id: PortId, value: &Bits) -> Result<(), Error> {
        let p = self.input(id)?;
        if value.width() > p.width && !value.slice(value.width() - 1, p.width).is_zero() {
            return Err(too_wide(p, value));
        }
        let n = words_for(p.width);
        for (i, s) in self.scratch[..n].iter_mut().enumerate() {
            *s = value.words().get(i).copied().unwrap_or(0);
        }
        // SAFETY: `data` holds the live ports of this model; `scratch` has the limbs.
        unsafe { self.data[id.0 as usize].store(&self.scratch[..n]) };
        self.dirty = true;
        self.poked = true;
        Ok(())
    }

    /// As `poke_id`, without building a `Bits` (the fast path for narrow ports).
    #[inline]
    pub fn poke_id_u64(&mut self, id: PortId, value: u64) -> Result<(), Error> {
        let p = self.input(id)?;
        if p.width < 64 && value >> p.width != 0 {
            return Err(too_wide(p, &Bits::from_u64(64, value)));
        }
        let port = &self.data[id.0 as usize];
        if port.width <= 64 {
            // SAFETY: as in `poke_id`.
            unsafe { port.store(&[value]) };
        } else {
            let n = words_for(port.width);
            self.scratch[..n].fill(0);
            self.scratch[0] = value;
            // SAFETY: as in `poke_id`.
            unsafe { port.store(&self.scratch[..n]) };
        }
        self.dirty = true;
        self.poked = true;
        Ok(())
    }

    /// Settles combinational logic after pokes (peeks do this themselves).
    #[inline]
    pub fn eval(&mut self) {
        if self.dirty {
            // SAFETY: `handle` is a live model.
            unsafe { (self.abi.eval)(self.handle) };
            self.dirty = false;
        }
    }

    pub fn peek_id(&mut self, id: PortId) -> Result<Bits, Error> {
        let n = words_for(self.checked(id)?.width);
        self.eval();
        let port = &self.data[id.0 as usize];
        // SAFETY: as in `poke_id`.
        unsafe { port.load(&mut self.scratch[..n]) };
        Ok(Bits::from_words(port.width, &self.scratch[..n]))
    }

    /// The low 64 bits of a port.
    #[inline]
    pub fn peek_id_u64(&mut self, id: PortId) -> Result<u64, Error> {
        self.checked(id)?;
        self.eval();
        // SAFETY: as in `poke_id`.
        Ok(unsafe { self.data[id.0 as usize].low_u64() })
    }

    pub fn poke(&mut self, port: &str, value: &Bits) -> Result<(), Error> {
        self.poke_id(self.port(port)?, value)
    }

    #[inline]
    pub fn poke_u64(&mut self, port: &str, value: u64) -> Result<(), Error> {
        self.poke_id_u64(self.port(port)?, value)
    }

    pub fn peek(&mut self, port: &str) -> Result<Bits, Error> {
        self.peek_id(self.port(port)?)
    }

    #[inline]
    pub fn peek_u64(&mut self, port: &str) -> Result<u64, Error> {
        self.peek_id_u64(self.port(port)?)
    }

    /// One rising clock edge.
    #[inline]
    pub fn step(&mut self) {
        self.step_n(1);
    }

    /// `cycles` rising clock edges with the inputs unchanged.
    #[inline]
    pub fn step_n(&mut self, cycles: u64) {
        // SAFETY: `handle` is a live model.
        unsafe { (self.abi.step)(self.handle, cycles, self.dirty) };
        // The edges leave outputs settled (or, with no edge, nothing was evaluated).
        self.dirty &= cycles == 0;
        self.cycle += cycles;
    }

    /// Writes a waveform of every signal to `path` from now on, sampled before each clock
    /// edge (time 2 x cycle, as the IR simulator's) and after it, until `close_trace` or
    /// drop. The format is the one the model was built with (`Options::trace`).
    pub fn trace(&mut self, path: &Path) -> Result<(), Error> {
        let c = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| Error::TraceOpen(path.to_path_buf()))?;
        // SAFETY: `c` is a NUL-terminated path that outlives the call.
        match unsafe { (self.abi.trace_open)(self.handle, c.as_ptr()) } {
            0 => Ok(()),
            1 => Err(Error::TraceNotBuilt),
            _ => Err(Error::TraceOpen(path.to_path_buf())),
        }
    }

    /// Writes the final sample and closes the waveform, if one is open.
    pub fn close_trace(&mut self) {
        self.eval();
        // SAFETY: `handle` is a live model.
        unsafe { (self.abi.trace_close)(self.handle) }
    }
}

/// A new instance of a loaded model, starting from `init`, and where its ports live.
fn create(
    abi: &Abi,
    ports: &[PortSpec],
    init: Init,
) -> Result<(*mut c_void, Vec<PortData>), Error> {
    let (rand_reset, seed) = match init {
        Init::Zero => (0, 0),
        Init::Random { seed } => (2, seed),
    };
    // SAFETY: `new` takes two integers and returns an owned model or null.
    let handle = unsafe { (abi.new)(rand_reset, seed) };
    if handle.is_null() {
        return Err(Error::Create);
    }
    let data = ports
        .iter()
        .enumerate()
        .map(|(i, p)| PortData {
            // SAFETY: `handle` is live and `i` indexes its ports, as `load` checked.
            ptr: unsafe { (abi.port_data)(handle, i as u32) },
            width: p.width,
        })
        .collect();
    Ok((handle, data))
}

// Errors are built out of line, keeping pokes and peeks small enough to inline.
#[cold]
fn too_wide(p: &PortSpec, value: &Bits) -> Error {
    Error::TooWide {
        port: p.name.clone(),
        width: p.width,
        value: value.to_string(),
    }
}

#[cold]
fn not_an_input(p: &PortSpec) -> Error {
    Error::NotAnInput(p.name.clone())
}

#[cold]
fn no_port(id: PortId) -> Error {
    Error::NoPort(format!("#{}", id.0))
}

impl Drop for Model {
    fn drop(&mut self) {
        self.close_trace();
        // SAFETY: `handle` came from `new` and is freed once.
        unsafe { (self.abi.free)(self.handle) }
    }
}
