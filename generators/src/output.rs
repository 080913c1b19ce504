//! The files `accelgen generate` writes for a design, built in memory so the caller can
//! write them all or nothing: Verilog (one file per module plus `filelist.f`, or a single
//! file), `sram_macros.json` and `manifest.json` (parameters, files, the instance tree and
//! every module's ports and arrays). Same input, byte-identical output.

use crate::{registry, GenError};
use hdl::emit::{self, EmitOptions, SramMacro};
use hdl::{Design, Dir, MemStyle, Module};
use serde::Serialize;
use std::rc::Rc;

#[derive(Clone, Copy, Debug, Default)]
pub struct OutputOptions {
    /// All modules in one `<top>.v` instead of one file per module.
    pub single_file: bool,
    /// Memories as inferred arrays even where the design asks for SRAM macros.
    pub all_inferred: bool,
}

/// Name and contents of every output file, in a fixed order, and what they hold.
pub struct Output {
    pub top: String,
    pub files: Vec<(String, String)>,
    /// Distinct Verilog modules of the design (SRAM macros not counted).
    pub modules: usize,
    /// Every SRAM macro with its number of instances in the whole hierarchy.
    pub macros: Vec<(String, usize)>,
}

impl Output {
    /// Bytes of Verilog in the output (every `.v` file).
    pub fn verilog_bytes(&self) -> usize {
        self.files
            .iter()
            .filter(|(n, _)| n.ends_with(".v"))
            .map(|(_, t)| t.len())
            .sum()
    }
}

/// The `generator` field of every manifest accelgen writes: what marks a directory as
/// accelgen's own output, which `accelgen generate -o` may replace.
pub const MANIFEST_GENERATOR: &str = "accelgen";

/// The name of the manifest file in every output directory.
pub const MANIFEST: &str = "manifest.json";

#[derive(Serialize)]
struct Manifest<'a> {
    generator: &'a str,
    /// Every other file of the output directory (all but the manifest itself).
    outputs: Vec<&'a str>,
    design: &'a str,
    parameters: &'a toml::Table,
    top: &'a str,
    single_file: bool,
    all_inferred: bool,
    /// Verilog sources in compilation order (children first).
    files: Vec<&'a str>,
    hierarchy: Node,
    modules: Vec<ModuleInfo>,
}

/// An instance in the module tree; the root is the top module itself.
#[derive(Serialize)]
struct Node {
    instance: String,
    module: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    children: Vec<Node>,
}

#[derive(Serialize)]
struct ModuleInfo {
    name: String,
    ports: Vec<PortInfo>,
    /// The module's arrays, as emitted (`crate::memory`'s policy made each one's style).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    memories: Vec<MemInfo>,
}

/// An array of a module: its shape, its ports and how it is emitted.
#[derive(Serialize)]
struct MemInfo {
    name: String,
    depth: u64,
    width: u32,
    bits: u64,
    sync_reads: usize,
    comb_reads: usize,
    writes: usize,
    /// The SRAM macro it is an instance of; absent: an inferred array (flops, LUT RAM).
    #[serde(skip_serializing_if = "Option::is_none")]
    sram_macro: Option<String>,
}

fn memories(m: &Module, opts: &OutputOptions) -> Vec<MemInfo> {
    m.body
        .mems
        .iter()
        .map(|mem| {
            let ports = crate::memory::ports_of(mem);
            let sram = mem.style == MemStyle::Sram && !opts.all_inferred;
            MemInfo {
                name: mem.name.clone(),
                depth: mem.depth,
                width: mem.width,
                bits: mem.depth * mem.width as u64,
                sync_reads: ports.sync_reads,
                comb_reads: ports.comb_reads,
                writes: ports.writes,
                sram_macro: sram.then(|| SramMacro::for_memory(mem).name),
            }
        })
        .collect()
}

/// A port of a module as its Verilog declares it.
#[derive(Clone, Debug, Serialize)]
pub struct PortInfo {
    pub name: String,
    /// `input` or `output`.
    pub direction: &'static str,
    pub width: u32,
}

/// The rendered design that `render_with`'s extra files are made from.
pub struct Rendered<'a> {
    /// The design's registry name.
    pub design: &'a str,
    pub top: &'a str,
    /// The top module's ports, `clock` and `reset` first when it is clocked.
    pub top_ports: &'a [PortInfo],
    /// The Verilog files in compilation order (children first).
    pub verilog: &'a [&'a str],
    /// The SRAM macros; their behavioural models are the Verilog files `<name>.v`.
    pub macros: &'a [SramMacro],
}

/// Elaborates design `name` with `overrides` and renders its output files.
pub fn render(
    name: &str,
    overrides: &toml::Table,
    opts: &OutputOptions,
) -> Result<Output, GenError> {
    render_with(name, overrides, opts, |_| Ok::<_, GenError>(Vec::new()))
}

/// Like `render`, with the files `extra` makes from the rendered design added to the output
/// (their names may hold `/`: files in subdirectories) and listed in the manifest's
/// `outputs` like the others; an error of `extra` is the result.
pub fn render_with<E: From<GenError>>(
    name: &str,
    overrides: &toml::Table,
    opts: &OutputOptions,
    extra: impl FnOnce(&Rendered) -> Result<Vec<(String, String)>, E>,
) -> Result<Output, E> {
    let info = registry::design(name)?;
    let elab = info.elaborate(overrides)?;
    render_top_with(info.name, &elab.params, &elab.top, opts, Vec::new(), extra)
}

/// Renders the output files of `top`, elaborated from design `name` with every
/// parameter `params` (for a caller that builds a design's top itself, with contents
/// the registry's parameters do not carry, such as a preloaded program), plus `extra`
/// files of the caller's, listed in the manifest like the others.
pub fn render_top(
    name: &str,
    params: &toml::Table,
    top: &Rc<Module>,
    opts: &OutputOptions,
    extra: Vec<(String, String)>,
) -> Output {
    let Ok(out) = render_top_with(name, params, top, opts, extra, |_| {
        Ok::<_, std::convert::Infallible>(Vec::new())
    });
    out
}

/// [`render_top`] with the caller's files `own` (its Verilog listed among the design's
/// sources) and the files `extra` makes from the rendered design (see [`render_with`]).
fn render_top_with<E>(
    name: &str,
    params: &toml::Table,
    top: &Rc<Module>,
    opts: &OutputOptions,
    own: Vec<(String, String)>,
    extra: impl FnOnce(&Rendered) -> Result<Vec<(String, String)>, E>,
) -> Result<Output, E> {
    let design = Design::new(top);
    let emitted = emit::emit(
        &design,
        &EmitOptions {
            all_inferred: opts.all_inferred,
            ..EmitOptions::default()
        },
    );
    let mut files = if opts.single_file {
        // The file list, like the multi-file output's: paths relative to the list.
        let name = format!("{}.v", emitted.top);
        let mut files = vec![
            (name.clone(), emitted.single_file()),
            ("filelist.f".to_string(), format!("{name}\n")),
        ];
        files.extend(emitted.init_files.iter().cloned());
        files
    } else {
        emitted.files()
    };
    files.push(("sram_macros.json".into(), json(&emitted.macros)));
    files.extend(own);
    let top_ports = ports(design.top());
    let added = {
        let verilog = verilog_files(&files);
        extra(&Rendered {
            design: name,
            top: &emitted.top,
            top_ports: &top_ports,
            verilog: &verilog,
            macros: &emitted.macros,
        })?
    };
    let verilog = verilog_files(&files);
    let outputs = files
        .iter()
        .chain(&added)
        .map(|(f, _)| f.as_str())
        .collect();
    let manifest = Manifest {
        generator: MANIFEST_GENERATOR,
        outputs,
        design: name,
        parameters: params,
        top: &emitted.top,
        single_file: opts.single_file,
        all_inferred: opts.all_inferred,
        files: verilog,
        hierarchy: tree(&design, design.top(), &emitted.top, opts),
        modules: design
            .modules()
            .map(|(name, m)| ModuleInfo {
                name: name.to_string(),
                ports: ports(m),
                memories: memories(m, opts),
            })
            .collect(),
    };
    let macros = emitted
        .macros
        .iter()
        .map(|m| (m.name.clone(), instances(&manifest.hierarchy, &m.name)))
        .collect();
    let modules = manifest.modules.len();
    let manifest = json(&manifest);
    files.extend(added);
    files.push((MANIFEST.into(), manifest));
    Ok(Output {
        top: emitted.top,
        files,
        modules,
        macros,
    })
}

/// The Verilog files among `files`, in their order.
fn verilog_files(files: &[(String, String)]) -> Vec<&str> {
    files
        .iter()
        .map(|(f, _)| f.as_str())
        .filter(|f| f.ends_with(".v"))
        .collect()
}

/// Instances of `module` in the tree under `node` (the node itself included).
fn instances(node: &Node, module: &str) -> usize {
    usize::from(node.module == module)
        + node
            .children
            .iter()
            .map(|c| instances(c, module))
            .sum::<usize>()
}

fn json<T: Serialize>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("manifest types serialize");
    s.push('\n');
    s
}

fn tree(design: &Design, m: &Rc<Module>, instance: &str, opts: &OutputOptions) -> Node {
    let b = &m.body;
    let mut children: Vec<Node> = b
        .instances
        .iter()
        .map(|i| tree(design, &i.module, &i.name, opts))
        .collect();
    // SRAM-style memories are instances of macros in the Verilog too.
    children.extend(
        b.mems
            .iter()
            .filter(|mem| mem.style == MemStyle::Sram && !opts.all_inferred)
            .map(|mem| Node {
                instance: mem.name.clone(),
                module: SramMacro::for_memory(mem).name,
                children: vec![],
            }),
    );
    Node {
        instance: instance.to_string(),
        module: design.name_of(m).to_string(),
        children,
    }
}

/// Ports as the Verilog declares them, `clock` and `reset` first in clocked modules.
fn ports(m: &Module) -> Vec<PortInfo> {
    let b = &m.body;
    let clocking = ["clock", "reset"].into_iter().map(|n| PortInfo {
        name: n.to_string(),
        direction: "input",
        width: 1,
    });
    let declared = b.ports.iter().map(|p| PortInfo {
        name: p.name.clone(),
        direction: if p.dir == Dir::In { "input" } else { "output" },
        width: m.signal(p.sig).width,
    });
    clocking
        .take(if b.clocked { 2 } else { 0 })
        .chain(declared)
        .collect()
}
