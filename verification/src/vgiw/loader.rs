//! The loader of design `vgiw`: the kernels a program launches, compiled for the fabric
//! (`kernels::compile_launched`), put in memory beside the program where the launcher
//! (`generators::vgiw::launcher`) finds them. At `image_base`: the kernel directory, 16
//! bytes a kernel and an entry of address 0 after the last, then the kernel image
//! (`compiler::image`, VGIWIMG2) at the next 8-byte boundary. A kernel's entry holds
//! its entry address (what `launch_kernel` passes, so the launch names its image by the
//! function's address), its CVT words a block (`VgiwParams::tile_words`) and the address
//! of its block 0.

use super::kernels::{compile_launched, KernelError};
use crate::elf::Program;
use generators::vgiw::compiler::image::{self, KernelImage};
use generators::vgiw::compiler::Kernel;
use generators::vgiw::grid::Grid;
use generators::vgiw::launcher::ENTRY_BYTES;
use generators::vgiw::params::VgiwParams;

/// Why a program's kernels cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Kernel(#[from] KernelError),
    #[error("kernel {kernel} has {blocks} blocks; the BBS takes at most max_blocks ({max_blocks}) and the CVT's {words} words must give each block one")]
    TooManyBlocks {
        kernel: String,
        blocks: usize,
        max_blocks: u32,
        words: u32,
    },
    #[error("the kernel directory and images ({bytes} bytes at {base:#x}) do not fit below 4 GiB")]
    TooLarge { base: u64, bytes: usize },
    #[error("the {what} at {base:#x}..{end:#x} overlap {other}")]
    Overlap {
        what: &'static str,
        base: u64,
        end: u64,
        other: String,
    },
}

/// A program's kernels as the launcher finds them.
pub struct Loaded {
    pub kernels: Vec<Kernel>,
    pub images: Vec<KernelImage>,
    /// Where `bytes` go (`image_base`) and the directory and image.
    pub base: u64,
    pub bytes: Vec<u8>,
}

/// Compiles the kernels `program` launches for `p` (found on the ISS within
/// `max_steps`) and lays out their directory and image.
pub fn load(program: &Program, p: &VgiwParams, max_steps: u64) -> Result<Loaded, LoadError> {
    let kernels = compile_launched(program, p, max_steps)?;
    layout(program, p, kernels)
}

/// The directory and image of `kernels` (compiled for `p`) at `p.image_base`.
pub fn layout(
    program: &Program,
    p: &VgiwParams,
    kernels: Vec<Kernel>,
) -> Result<Loaded, LoadError> {
    for k in &kernels {
        if p.tile_threads(k.blocks.len()) == 0 {
            return Err(LoadError::TooManyBlocks {
                kernel: k.name.clone(),
                blocks: k.blocks.len(),
                max_blocks: p.max_blocks,
                words: p.cvt_words,
            });
        }
    }
    let image = image::encode(&kernels, &Grid::new(p), p.switch_channels);
    let images = image::decode(&image).expect("an encoded image decodes");
    let dir_bytes = (kernels.len() as u64 + 1) * ENTRY_BYTES;
    let image_at = p.image_base + dir_bytes;
    let mut bytes = Vec::with_capacity(dir_bytes as usize + image.len());
    for k in &images {
        let words = p.tile_words(k.blocks.len()) as u64;
        let block0 = image_at + k.blocks_at as u64;
        bytes.extend_from_slice(&(k.entry as u64 | words << 32).to_le_bytes());
        bytes.extend_from_slice(&block0.to_le_bytes());
    }
    bytes.extend_from_slice(&[0; ENTRY_BYTES as usize]);
    bytes.extend_from_slice(&image);
    let end = p.image_base + bytes.len() as u64;
    if end > 1 << 32 {
        return Err(LoadError::TooLarge {
            base: p.image_base,
            bytes: bytes.len(),
        });
    }
    let live = (images.iter())
        .map(|k| k.live_values as u64 * p.tile_threads(k.blocks.len()) as u64 * 4)
        .max()
        .unwrap_or(0);
    let regions = [
        ("kernel images", p.image_base, end),
        ("live values", p.live_base, p.live_base + live),
    ];
    for (i, &(what, base, end)) in regions.iter().enumerate() {
        let segments = (program.segments.iter()).map(|s| {
            (
                format!("the program's segment at {:#x}", s.addr),
                s.addr,
                s.addr + s.data.len() as u64,
            )
        });
        let others = regions[i + 1..]
            .iter()
            .map(|&(w, b, e)| (format!("the {w}"), b, e));
        if let Some((other, ..)) = segments
            .chain(others)
            .find(|&(_, b, e)| b < end && base < e)
        {
            return Err(LoadError::Overlap {
                what,
                base,
                end,
                other,
            });
        }
    }
    Ok(Loaded {
        kernels,
        images,
        base: p.image_base,
        bytes,
    })
}
