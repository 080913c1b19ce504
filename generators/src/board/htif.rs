//! `HtifBridge`: the host side of HTIF in hardware, as `verification::iss::htif` does it
//! in the golden model, with the UART as the console.
//!
//! It watches the tile's memory requests (`snoop_*`) for a store to `tohost` (outside
//! the D$: the tile's uncached region) and, while idle, takes its value and serves it:
//! - device 0, command 0, payload odd: exit with code `payload >> 1` (low 32 bits);
//! - device 0, command 0, payload even: a system call whose block `[n, a0, a1, a2]` is at
//!   `payload`: `write` (64) to fd 1 or 2 sends the buffer's bytes out of the UART and
//!   returns `len`; `exit` (93) exits with code `a0`; another fd returns -EBADF, another
//!   call -ENOSYS; the result goes to block[0] and 1 to `fromhost`;
//! - device 1, command 1: the payload's low byte to the UART (console putchar);
//! - anything else is ignored.
//!
//! When done (but for exit) it clears `tohost` in RAM (the acknowledgement a program
//! polls for between putchars), then writes `fromhost` after a system call: it is idle
//! again before the program can have seen either, so no command is missed.
//!
//! It reads and writes RAM through `host_req`/`host_resp` (the RAM answers the next
//! cycle). On exit it sends the exit frame over the UART, NUL then the exit code's 32
//! bits as 8 lowercase hexadecimal digits, most significant first, and then holds
//! `exit_valid` high with `exit_code`: the frame is the last thing the board sends.

use crate::rocket::bus::{mem_request, mem_response};
use hdl::{mux, Bits, Dir, HdlErrors, Module, ModuleBuilder, Shape, Value};
use std::rc::Rc;

const SYS_WRITE: u64 = 64;
const SYS_EXIT: u64 = 93;
const ENOSYS: u64 = -38i64 as u64;
const EBADF: u64 = -9i64 as u64;

/// The bridge's states (a request state is followed by its wait for the answer).
#[derive(Clone, Copy)]
enum S {
    Idle,
    Clear,
    ClearWait,
    Decode,
    Block,
    BlockWait,
    Syscall,
    Buf,
    BufWait,
    Send,
    Result,
    ResultWait,
    Fromhost,
    FromhostWait,
    Putc,
    Exit,
    Done,
}

const STATE_BITS: u32 = 5;

/// Ports: `snoop_valid`/`snoop_write`/`snoop_addr`/`snoop_data` (the tile's accepted
/// requests), `host_req`/`host_resp` (to the RAM), `tx` (decoupled bytes to the UART),
/// `exit_valid`, `exit_code`. `tohost`/`fromhost`: the mailbox's addresses.
pub fn htif_bridge(tohost: u64, fromhost: u64) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("HtifBridge");
    let snoop_valid = m.input("snoop_valid", 1);
    let snoop_write = m.input("snoop_write", 1);
    let snoop_addr = m.input("snoop_addr", 32);
    let snoop_data = m.input("snoop_data", 64);
    let req = m.io("host_req", Dir::Out, &mem_request(0));
    let resp = m.io("host_resp", Dir::In, &mem_response(0));
    let tx = m.io("tx", Dir::Out, &Shape::decoupled(Shape::UInt(8)));
    let exit_valid = m.output("exit_valid", 1);
    let exit_code = m.output("exit_code", 32);

    let state = m.reg("state", STATE_BITS, S::Idle as u64);
    let is = |s: S| state.eq(&state.konst(Bits::from_u64(STATE_BITS, s as u64)));
    let cmd = m.reg("cmd", 64, 0u64);
    let args: Vec<Value> = (0..4)
        .map(|i| m.reg(&format!("arg{i}"), 64, 0u64))
        .collect();
    let idx = m.reg("idx", 2, 0u64);
    let result = m.reg("result", 64, 0u64);
    let dword = m.reg("dword", 64, 0u64);
    let digit = m.reg("digit", 4, 0u64);
    let code = m.reg("code", 32, 0u64);
    let (ptr, len) = (&args[2], &args[3]);
    let k = |v: &Value, x: u64| v.konst(Bits::from_u64(v.width(), x));
    let goto = |m: &mut ModuleBuilder, s: S| {
        let v = m.lit(s as u64, STATE_BITS);
        m.connect(&state, &v);
    };

    // Idle: a nonzero store to tohost starts a command.
    let hit = &(&snoop_valid & &snoop_write)
        & &snoop_addr
            .slice(31, 3)
            .eq(&k(&snoop_addr.slice(31, 3), tohost >> 3));
    m.when(&(&(&is(S::Idle) & &hit) & &snoop_data.or_r()), |m| {
        m.connect(&cmd, &snoop_data);
        goto(m, S::Decode);
    });

    // Memory requests: which state asks for what.
    let base = cmd.slice(31, 0);
    let block_addr = &base + &idx.zext(32).shl(3).trunc(32);
    let buf_addr = &ptr.slice(31, 0) & &k(&ptr.slice(31, 0), !7u64 & 0xffff_ffff);
    let cases = [
        (S::Clear, k(&base, tohost), k(&cmd, 0), true),
        (S::Block, block_addr, k(&cmd, 0), false),
        (S::Buf, buf_addr, k(&cmd, 0), false),
        (S::Result, base.clone(), result.clone(), true),
        (S::Fromhost, k(&base, fromhost), k(&cmd, 1), true),
    ];
    let (mut valid, mut addr, mut data, mut write) =
        (m.lit(0, 1), k(&base, 0), k(&cmd, 0), m.lit(0, 1));
    for (s, a, d, w) in &cases {
        let here = is(*s);
        valid = &valid | &here;
        addr = mux(&here, a, &addr);
        data = mux(&here, d, &data);
        write = &write | &(&here & &m.lit(u64::from(*w), 1));
    }
    let rb = req.bits();
    m.connect(req.valid(), &valid);
    m.connect(rb.get("addr").value(), &addr);
    m.connect(rb.get("data").value(), &data);
    m.connect(rb.get("write").value(), &write);
    let (mask, size) = (m.lit(0xff, 8), m.lit(3, 3));
    m.connect(rb.get("mask").value(), &mask);
    m.connect(rb.get("size").value(), &size);
    for (s, next) in [
        (S::Clear, S::ClearWait),
        (S::Block, S::BlockWait),
        (S::Buf, S::BufWait),
        (S::Result, S::ResultWait),
        (S::Fromhost, S::FromhostWait),
    ] {
        m.when(&(&is(s) & req.ready()), |m| goto(m, next));
    }
    let answered = resp.valid().clone();
    let rdata = resp.bits().get("data").value().clone();
    // Clearing tohost acknowledges a command; a system call's result then follows in
    // fromhost.
    let reply = m.reg("reply", 1, 0u64);
    m.when(&(&is(S::ClearWait) & &answered), |m| {
        let zero = m.lit(0, 1);
        m.connect(&reply, &zero);
        m.when(&reply, |m| goto(m, S::Fromhost))
            .otherwise(|m| goto(m, S::Idle));
    });
    m.when(&(&is(S::ResultWait) & &answered), |m| {
        let one = m.lit(1, 1);
        m.connect(&reply, &one);
        goto(m, S::Clear);
    });
    m.when(&(&is(S::FromhostWait) & &answered), |m| goto(m, S::Idle));

    decode(&mut m, &is, &goto, &cmd, &idx, &code);
    m.when(&(&is(S::BlockWait) & &answered), |m| {
        for (i, a) in args.iter().enumerate() {
            m.when(&idx.eq(&k(&idx, i as u64)), |m| m.connect(a, &rdata));
        }
        m.connect(&idx, &(&idx + &k(&idx, 1)));
        let last = idx.eq(&k(&idx, 3));
        m.when(&last, |m| goto(m, S::Syscall))
            .otherwise(|m| goto(m, S::Block));
    });
    syscall(&mut m, &is, &goto, &args, &result, &code);
    m.when(&(&is(S::BufWait) & &answered), |m| {
        m.connect(&dword, &rdata);
        goto(m, S::Send);
    });

    let byte = uart_byte(&is, &cmd, &dword, ptr, &digit, &code);
    m.connect(tx.valid(), &(&(&is(S::Send) | &is(S::Putc)) | &is(S::Exit)));
    m.connect(tx.bits().value(), &byte);
    let sent = tx.fire();
    m.when(&(&is(S::Send) & &sent), |m| {
        m.connect(ptr, &(ptr + &k(ptr, 1)));
        m.connect(len, &(len - &k(len, 1)));
        let last = len.eq(&k(len, 1));
        let next_word = ptr.slice(2, 0).eq(&k(&ptr.slice(2, 0), 7));
        m.when(&last, |m| goto(m, S::Result))
            .elsewhen(&next_word, |m| goto(m, S::Buf));
    });
    m.when(&(&is(S::Putc) & &sent), |m| goto(m, S::Clear));
    m.when(&(&is(S::Exit) & &sent), |m| {
        m.connect(&digit, &(&digit + &k(&digit, 1)));
        m.when(&digit.eq(&k(&digit, 8)), |m| goto(m, S::Done));
    });
    m.connect(&exit_valid, &is(S::Done));
    m.connect(&exit_code, &code);
    m.finish()
}

/// The byte for the UART: the buffer's (byte `ptr % 8` of `dword`), a putchar's (in
/// `cmd`), or the exit frame's `digit`-th (NUL, then `code` in hexadecimal).
fn uart_byte(
    is: &dyn Fn(S) -> Value,
    cmd: &Value,
    dword: &Value,
    ptr: &Value,
    digit: &Value,
    code: &Value,
) -> Value {
    let k = |v: &Value, x: u64| v.konst(Bits::from_u64(v.width(), x));
    let shift = ptr.slice(2, 0).zext(6).shl(3);
    let buf_byte = dword.dshr(&shift).slice(7, 0);
    let nibble = code
        .dshr(&(&k(digit, 8) - digit).zext(5).shl(2))
        .slice(3, 0);
    let ascii = mux(
        &nibble.lt(&k(&nibble, 10)),
        &(&nibble.zext(8) + &k(&buf_byte, u64::from(b'0'))),
        &(&nibble.zext(8) + &k(&buf_byte, u64::from(b'a') - 10)),
    );
    let frame_byte = mux(&digit.eq(&k(digit, 0)), &k(&buf_byte, 0), &ascii);
    mux(
        &is(S::Send),
        &buf_byte,
        &mux(&is(S::Putc), &cmd.slice(7, 0), &frame_byte),
    )
}

/// Decode: the command in `cmd` picks exit, a system call or putchar.
fn decode(
    m: &mut ModuleBuilder,
    is: &dyn Fn(S) -> Value,
    goto: &dyn Fn(&mut ModuleBuilder, S),
    cmd: &Value,
    idx: &Value,
    code: &Value,
) {
    let device = cmd.slice(63, 56);
    let command = cmd.slice(55, 48);
    let zero8 = device.konst(Bits::zero(8));
    let one8 = device.konst(Bits::from_u64(8, 1));
    let proxy = &device.eq(&zero8) & &command.eq(&zero8);
    let putchar = &device.eq(&one8) & &command.eq(&one8);
    m.when(&is(S::Decode), |m| {
        m.when(&(&proxy & &cmd.bit(0)), |m| {
            m.connect(code, &cmd.slice(32, 1));
            goto(m, S::Exit);
        })
        .elsewhen(&proxy, |m| {
            let zero = idx.konst(Bits::zero(2));
            m.connect(idx, &zero);
            goto(m, S::Block);
        })
        .elsewhen(&putchar, |m| goto(m, S::Putc))
        .otherwise(|m| goto(m, S::Clear));
    });
}

/// The system call in `args` (`[n, fd, buf, len]`): its result, and where to go.
fn syscall(
    m: &mut ModuleBuilder,
    is: &dyn Fn(S) -> Value,
    goto: &dyn Fn(&mut ModuleBuilder, S),
    args: &[Value],
    result: &Value,
    code: &Value,
) {
    let k = |v: &Value, x: u64| v.konst(Bits::from_u64(v.width(), x));
    let (n, fd, len) = (&args[0], &args[1], &args[3]);
    let console = &fd.eq(&k(fd, 1)) | &fd.eq(&k(fd, 2));
    m.when(&is(S::Syscall), |m| {
        m.when(&n.eq(&k(n, SYS_EXIT)), |m| {
            m.connect(code, &fd.slice(31, 0));
            goto(m, S::Exit);
        })
        .elsewhen(&(&n.eq(&k(n, SYS_WRITE)) & &console), |m| {
            m.connect(result, len);
            let empty = len.eq(&k(len, 0));
            m.when(&empty, |m| goto(m, S::Result))
                .otherwise(|m| goto(m, S::Buf));
        })
        .elsewhen(&n.eq(&k(n, SYS_WRITE)), |m| {
            m.connect(result, &k(result, EBADF));
            goto(m, S::Result);
        })
        .otherwise(|m| {
            m.connect(result, &k(result, ENOSYS));
            goto(m, S::Result);
        });
    });
}
