//! Host-target interface (HTIF) through the `tohost`/`fromhost` words, as used by
//! riscv-tests and bare-metal C on Spike.
//!
//! A `tohost` value is `device[63:56] cmd[55:48] payload[47:0]`:
//! - device 0, cmd 0, payload odd: exit with code `payload >> 1` (riscv-tests: 1 = pass);
//! - device 0, cmd 0, payload even: system call; the payload points at eight 64-bit words
//!   `[number, arg0, arg1, ...]`; the result replaces word 0 and `fromhost` becomes 1;
//! - device 1, cmd 1: console output of the byte in payload[7:0].
//!
//! The host only looks at `tohost` between execution chunks (see `Iss::run`), which is
//! when Spike's front-end server looks too; this keeps the number of polling-loop
//! iterations, and so the commit logs, identical.

use super::mem::Memory;
use std::io::Write;

/// The memory the host reads and writes: the ISS's, or a test bench's model of a design's.
pub trait HostMemory {
    /// The `size`-byte little-endian value at `addr`, if it is memory.
    fn read(&self, addr: u64, size: usize) -> Option<u64>;
    /// Writes the low `size` bytes of `value`; false if `addr` is not writable memory.
    fn write(&mut self, addr: u64, size: usize, value: u64) -> bool;
    /// `len` bytes at `addr`, if they are all memory.
    fn bytes(&self, addr: u64, len: usize) -> Option<Vec<u8>>;
}

impl HostMemory for Memory {
    fn read(&self, addr: u64, size: usize) -> Option<u64> {
        Memory::read(self, addr, size)
    }

    fn write(&mut self, addr: u64, size: usize, value: u64) -> bool {
        Memory::write(self, addr, size, value)
    }

    fn bytes(&self, addr: u64, len: usize) -> Option<Vec<u8>> {
        self.slice(addr, len).map(<[u8]>::to_vec)
    }
}

const SYS_WRITE: u64 = 64;
const SYS_EXIT: u64 = 93;
/// Returned for system calls the proxy does not implement (Linux's -ENOSYS).
const ENOSYS: u64 = -38i64 as u64;
/// Returned when a write to the host console fails (Linux's -EIO).
const EIO: u64 = -5i64 as u64;
/// Returned for a file descriptor other than stdout/stderr (Linux's -EBADF).
const EBADF: u64 = -9i64 as u64;

/// Errors that stop the simulation because the program broke the HTIF protocol.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HtifError {
    #[error("HTIF: tohost at {0:#x} is outside memory")]
    BadTohost(u64),
    #[error("HTIF: system-call block at {0:#x} is outside memory")]
    BadSyscallBlock(u64),
    #[error("HTIF: write buffer {addr:#x}+{len} is outside memory")]
    BadBuffer { addr: u64, len: u64 },
    #[error("HTIF: unsupported command {value:#018x} (device {device}, cmd {cmd})")]
    Unsupported { value: u64, device: u64, cmd: u64 },
}

/// The host side: where `tohost`/`fromhost` are and where console output goes.
pub struct Htif {
    tohost: u64,
    fromhost: Option<u64>,
    pending_fromhost: Option<u64>,
    stdout: Box<dyn Write>,
    stderr: Box<dyn Write>,
}

impl Htif {
    pub fn new(
        tohost: u64,
        fromhost: Option<u64>,
        stdout: Box<dyn Write>,
        stderr: Box<dyn Write>,
    ) -> Htif {
        Htif {
            tohost,
            fromhost,
            pending_fromhost: None,
            stdout,
            stderr,
        }
    }

    /// One host poll: handles a command in `tohost`, then delivers a pending response to
    /// `fromhost` once the target has consumed the previous one. Returns the exit code
    /// when the program asked to exit.
    pub fn poll(&mut self, mem: &mut impl HostMemory) -> Result<Option<u64>, HtifError> {
        let value = mem
            .read(self.tohost, 8)
            .ok_or(HtifError::BadTohost(self.tohost))?;
        let mut exit = None;
        if value != 0 {
            mem.write(self.tohost, 8, 0);
            exit = self.handle(value, mem)?;
        }
        if let (Some(resp), Some(fromhost)) = (self.pending_fromhost, self.fromhost) {
            if mem.read(fromhost, 8) == Some(0) {
                mem.write(fromhost, 8, resp);
                self.pending_fromhost = None;
            }
        }
        Ok(exit)
    }

    fn handle(&mut self, value: u64, mem: &mut impl HostMemory) -> Result<Option<u64>, HtifError> {
        let device = value >> 56;
        let cmd = (value >> 48) & 0xff;
        let payload = value & ((1 << 48) - 1);
        match (device, cmd) {
            (0, 0) if payload & 1 == 1 => Ok(Some(payload >> 1)),
            (0, 0) => {
                let mut args = [0u64; 8];
                for (i, a) in args.iter_mut().enumerate() {
                    *a = mem
                        .read(payload + 8 * i as u64, 8)
                        .ok_or(HtifError::BadSyscallBlock(payload))?;
                }
                let ret = match args[0] {
                    SYS_EXIT => return Ok(Some(args[1])),
                    SYS_WRITE => self.sys_write(args[1], args[2], args[3], mem)?,
                    _ => ENOSYS,
                };
                mem.write(payload, 8, ret);
                self.pending_fromhost = Some(1);
                Ok(None)
            }
            (1, 1) => {
                // A failing console is not the program's fault; the byte is dropped.
                let _ = self.stdout.write_all(&[payload as u8]);
                let _ = self.stdout.flush();
                Ok(None)
            }
            _ => Err(HtifError::Unsupported { value, device, cmd }),
        }
    }

    fn sys_write(
        &mut self,
        fd: u64,
        addr: u64,
        len: u64,
        mem: &impl HostMemory,
    ) -> Result<u64, HtifError> {
        let buf = usize::try_from(len)
            .ok()
            .and_then(|n| mem.bytes(addr, n))
            .ok_or(HtifError::BadBuffer { addr, len })?;
        let sink = match fd {
            1 => &mut self.stdout,
            2 => &mut self.stderr,
            _ => return Ok(EBADF),
        };
        Ok(match sink.write_all(&buf).and_then(|_| sink.flush()) {
            Ok(()) => len,
            Err(_) => EIO,
        })
    }
}
