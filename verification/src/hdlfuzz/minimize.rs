//! Shrinking a failing circuit: keep the failing output's cone, cut the cycles after the
//! first mismatch, then greedily apply the smallest reductions that keep the two
//! disagreeing simulators disagreeing. Candidates are evaluated many per batch, so a round
//! costs one simulator build whatever its size.

use super::spec::*;
use super::{evaluate, Config, Mismatch};
use hdl::Bits;

/// Candidates per evaluation batch.
const CHUNK: usize = 48;
/// Bound on evaluated candidates.
const MAX_ATTEMPTS: usize = 1500;

pub struct Minimized {
    pub circuit: Circuit,
    pub cycles: usize,
    pub original_size: usize,
}

pub fn minimize(cfg: &Config, index: u64, circuit: &Circuit, mm: &Mismatch) -> Minimized {
    let pair = [mm.pair.0, mm.pair.1];
    let fails = |cands: &[Circuit], cycles: usize| -> Vec<Option<usize>> {
        evaluate(cfg, index, cands, cycles, &pair)
            .into_iter()
            .map(|r| r.map(|m| m.cycle))
            .collect()
    };
    let mut cycles = mm.cycle + 1;
    let cone = circuit.only_output(mm.output);
    // The cone alone should still fail; fall back to the whole circuit if it does not.
    let mut cur = match fails(std::slice::from_ref(&cone), cycles)[0] {
        Some(_) => cone,
        None => circuit.clone(),
    };
    let mut attempts = 0;
    'rounds: while attempts < MAX_ATTEMPTS {
        let size = cur.size();
        let mut cands: Vec<Circuit> = reductions(&cur)
            .into_iter()
            .filter(|c| c.size() < size)
            .collect();
        cands.sort_by_key(Circuit::size);
        cands.dedup();
        for chunk in cands.chunks(CHUNK) {
            attempts += chunk.len();
            let results = fails(chunk, cycles);
            let best = chunk
                .iter()
                .zip(results)
                .filter_map(|(c, r)| r.map(|cyc| (c, cyc)))
                .min_by_key(|(c, _)| c.size());
            if let Some((c, cyc)) = best {
                cur = c.clone();
                cycles = cyc + 1;
                continue 'rounds;
            }
            if attempts >= MAX_ATTEMPTS {
                break;
            }
        }
        break;
    }
    Minimized {
        circuit: cur,
        cycles,
        original_size: circuit.size(),
    }
}

/// Every one-step reduction of `c`, pruned.
fn reductions(c: &Circuit) -> Vec<Circuit> {
    let mut out = Vec::new();
    let top = c.modules.len() - 1;
    let fresh_input = c.top().inputs().map(|(_, id, _)| id + 1).max().unwrap_or(0);
    for (mi, m) in c.modules.iter().enumerate() {
        let mut with = |f: &dyn Fn(&mut ModuleSpec)| {
            let mut n = c.clone();
            f(&mut n.modules[mi]);
            out.push(n.prune());
        };
        for (i, it) in m.items.iter().enumerate() {
            let w = it.ty.width;
            match &it.kind {
                // Inputs are leaves (and a child's are its interface); instances go when
                // their outputs do.
                Kind::Input(_) | Kind::Inst { .. } => continue,
                Kind::Const(b) if b.is_zero() => continue,
                _ => {}
            }
            with(&|m| m.items[i].kind = Kind::Const(Bits::zero(w)));
            if mi == top && !matches!(it.kind, Kind::Const(_)) {
                with(&|m| m.items[i].kind = Kind::Input(fresh_input));
            }
            match &it.kind {
                Kind::Op { args, .. } => {
                    let mut same: Vec<usize> = args
                        .iter()
                        .copied()
                        .filter(|&a| m.items[a].ty == it.ty)
                        .collect();
                    same.dedup();
                    for a in same {
                        with(&|m| bypass(m, i, a));
                    }
                }
                Kind::Reg { reset, enable } => {
                    if enable.is_some() {
                        let reset = reset.clone();
                        with(&|m| {
                            m.items[i].kind = Kind::Reg {
                                reset: reset.clone(),
                                enable: None,
                            }
                        });
                    }
                    if *reset != Reset::Bits(Bits::zero(w)) {
                        let enable = *enable;
                        with(&|m| {
                            m.items[i].kind = Kind::Reg {
                                reset: Reset::Bits(Bits::zero(w)),
                                enable,
                            }
                        });
                    }
                }
                Kind::MemReadSync { mem, addr, .. } => {
                    let (mem, addr) = (*mem, *addr);
                    with(&|m| m.items[i].kind = Kind::MemRead { mem, addr });
                }
                _ => {}
            }
        }
        for v in block_variants(&m.stmts) {
            with(&|m| m.stmts = v.clone());
        }
        if mi != top {
            for (k, (i, _, ty)) in m.inputs().enumerate() {
                out.push(drop_child_input(c, mi, k, i, ty.width));
            }
        }
    }
    out
}

/// Replaces input `k` (item `i`) of child module `mi` by zero, removing the port and the
/// matching argument of every instance.
fn drop_child_input(c: &Circuit, mi: usize, k: usize, i: usize, width: u32) -> Circuit {
    let mut n = c.clone();
    n.modules[mi].items[i].kind = Kind::Const(Bits::zero(width));
    for m in &mut n.modules {
        for it in &mut m.items {
            if let Kind::Inst { module, args } = &mut it.kind {
                if *module == mi {
                    args.remove(k);
                }
            }
        }
    }
    n.prune()
}

/// Makes every reader of item `i` read `a` instead (an operand of the same type).
fn bypass(m: &mut ModuleSpec, i: usize, a: usize) {
    let f = |r: usize| if r == i { a } else { r };
    for it in &mut m.items {
        it.kind.map_refs(&f);
    }
    m.stmts = m.stmts.iter().map(|s| s.map(&f, &|k| k)).collect();
}

/// Every block obtained by removing one statement, or replacing one `when` by one of its
/// branches, or dropping one of its branches, at any depth.
fn block_variants(block: &[Stmt]) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    for (i, s) in block.iter().enumerate() {
        let replaced = |with: Vec<Stmt>| {
            let mut b = block[..i].to_vec();
            b.extend(with);
            b.extend_from_slice(&block[i + 1..]);
            b
        };
        out.push(replaced(vec![]));
        let Stmt::When {
            cond,
            then,
            elsewhens,
            otherwise,
        } = s
        else {
            continue;
        };
        let when = |then: Vec<Stmt>, elsewhens: Vec<(usize, Vec<Stmt>)>, otherwise| Stmt::When {
            cond: *cond,
            then,
            elsewhens,
            otherwise,
        };
        out.push(replaced(then.clone()));
        for (_, b) in elsewhens {
            out.push(replaced(b.clone()));
        }
        if let Some(o) = otherwise {
            out.push(replaced(o.clone()));
            out.push(replaced(vec![when(then.clone(), elsewhens.clone(), None)]));
        }
        for k in 0..elsewhens.len() {
            let mut e = elsewhens.clone();
            e.remove(k);
            out.push(replaced(vec![when(then.clone(), e, otherwise.clone())]));
        }
        for v in block_variants(then) {
            out.push(replaced(vec![when(
                v,
                elsewhens.clone(),
                otherwise.clone(),
            )]));
        }
        for k in 0..elsewhens.len() {
            for v in block_variants(&elsewhens[k].1) {
                let mut e = elsewhens.clone();
                e[k].1 = v;
                out.push(replaced(vec![when(then.clone(), e, otherwise.clone())]));
            }
        }
        if let Some(o) = otherwise {
            for v in block_variants(o) {
                out.push(replaced(vec![when(
                    then.clone(),
                    elsewhens.clone(),
                    Some(v),
                )]));
            }
        }
    }
    out
}
