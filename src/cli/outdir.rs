//! Writing an output directory all or nothing, and replacing one only when it is
//! accelgen's own: the files are staged in a temporary directory next to the destination,
//! then renamed into place, so a failure never leaves partial output and a user's files
//! are never deleted. File names may hold `/`: files in subdirectories of the output.

use anyhow::{anyhow, bail, Context};
use generators::output::{MANIFEST, MANIFEST_GENERATOR};
use serde::Deserialize;
use std::fs;
use std::path::{Path, PathBuf};

/// The fields of an earlier `manifest.json` that say whose output a directory is.
#[derive(Deserialize)]
struct Ownership {
    generator: String,
    outputs: Vec<String>,
}

/// Writes `files` as directory `dest`, all or nothing. An existing `dest` is replaced only
/// if it is empty or earlier accelgen output holding nothing but the files its manifest
/// lists. A symbolic link is followed: its target is the output directory.
pub fn write_atomically<C: AsRef<[u8]>>(dest: &Path, files: &[(String, C)]) -> anyhow::Result<()> {
    let dest = resolve_link(dest)?;
    let dest = dest.as_path();
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let replacing = match fs::metadata(dest) {
        Ok(m) if !m.is_dir() => bail!("output {} exists and is not a directory", dest.display()),
        Ok(_) => check_replaceable(dest)?,
        Err(_) => false,
    };
    fs::create_dir_all(parent)
        .with_context(|| format!("cannot create output directory {}", parent.display()))?;
    let staged = tempfile::Builder::new()
        .prefix(".accelgen-")
        .tempdir_in(parent)
        .with_context(|| format!("cannot write into {}", parent.display()))?;
    for (name, text) in files {
        let path = staged.path().join(name);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    // Temporary directories are private; the output is an ordinary directory.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(staged.path(), fs::Permissions::from_mode(0o755))?;
    }
    let cannot_replace = |e| anyhow!("cannot replace {}: {e}", dest.display());
    if replacing {
        // Moved aside rather than deleted first, so a failed rename can be undone.
        let old = tempfile::Builder::new()
            .prefix(".accelgen-old-")
            .tempdir_in(parent)
            .map_err(cannot_replace)?;
        let aside = old.path().join("previous");
        fs::rename(dest, &aside).map_err(cannot_replace)?;
        if let Err(e) = fs::rename(staged.path(), dest) {
            let _ = fs::rename(&aside, dest);
            return Err(cannot_replace(e));
        }
    } else {
        fs::rename(staged.path(), dest).map_err(cannot_replace)?;
    }
    // The staging directory is now `dest`; keep it from being cleaned up.
    let _ = staged.keep();
    Ok(())
}

/// `path`, or the directory a symbolic link at `path` points to (a dangling link is an
/// error: the output would land somewhere the user did not name).
fn resolve_link(path: &Path) -> anyhow::Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path).with_context(|| {
            format!(
                "output {} is a symbolic link to nothing that exists",
                path.display()
            )
        }),
        _ => Ok(path.to_path_buf()),
    }
}

/// Whether existing directory `dir` is to be replaced (it holds something) or merely
/// filled (it is empty); an error naming the first foreign file when it is not
/// accelgen's own output.
fn check_replaceable(dir: &Path) -> anyhow::Result<bool> {
    let mut names = Vec::new();
    list_tree(dir, "", &mut names)
        .with_context(|| format!("cannot read output directory {}", dir.display()))?;
    if names.is_empty() {
        return Ok(false);
    }
    names.sort_by(|a, b| a.0.cmp(&b.0));
    let refuse = |why: String| {
        anyhow!(
            "output directory {} is not empty and {why}; refusing to overwrite it",
            dir.display()
        )
    };
    let manifest = dir.join(MANIFEST);
    let Ok(text) = fs::read_to_string(&manifest) else {
        return Err(refuse(format!(
            "holds {} but no manifest.json of accelgen's",
            names[0].0
        )));
    };
    let owner = serde_json::from_str::<Ownership>(&text)
        .ok()
        .filter(|o| o.generator == MANIFEST_GENERATOR);
    let Some(owner) = owner else {
        return Err(refuse(format!(
            "holds a {MANIFEST} that accelgen did not write"
        )));
    };
    // A subdirectory is accelgen's when a listed output lies in it.
    let listed = |name: &str, ty: &fs::FileType| {
        if ty.is_dir() {
            let prefix = format!("{name}/");
            owner.outputs.iter().any(|o| o.starts_with(&prefix))
        } else {
            ty.is_file() && (name == MANIFEST || owner.outputs.iter().any(|o| o == name))
        }
    };
    if let Some((name, _)) = names.iter().find(|(name, ty)| !listed(name, ty)) {
        return Err(refuse(format!(
            "holds {name}, which is not part of the accelgen output its manifest lists"
        )));
    }
    Ok(true)
}

/// Every entry under `dir` (subdirectories and their contents, not following links) as a
/// path relative to the output directory, `/`-separated, with its type.
fn list_tree(
    dir: &Path,
    prefix: &str,
    out: &mut Vec<(String, fs::FileType)>,
) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        let ty = entry.file_type()?;
        if ty.is_dir() {
            list_tree(&entry.path(), &format!("{name}/"), out)?;
        }
        out.push((name, ty));
    }
    Ok(())
}
