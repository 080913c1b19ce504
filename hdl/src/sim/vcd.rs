//! VCD waveforms of a simulation, one scope per instance.

use super::eval::Machine;
use super::flatten::Flat;
use std::io::{self, Write};
use vcd::{IdCode, TimescaleUnit, Value};

pub(crate) struct VcdDump {
    w: vcd::Writer<Box<dyn Write>>,
    ids: Vec<IdCode>,
    last: Vec<Option<Vec<u64>>>,
    error: Option<io::Error>,
}

impl VcdDump {
    pub fn new(out: Box<dyn Write>, flat: &Flat) -> io::Result<VcdDump> {
        let mut w = vcd::Writer::new(out);
        w.timescale(1, TimescaleUnit::NS)?;
        let mut ids = Vec::with_capacity(flat.named.len());
        let mut open: Vec<String> = Vec::new();
        for (scope, name, slot) in &flat.named {
            let common = open.iter().zip(scope).take_while(|(a, b)| a == b).count();
            while open.len() > common {
                w.upscope()?;
                open.pop();
            }
            for s in &scope[common..] {
                w.add_module(s)?;
                open.push(s.clone());
            }
            ids.push(w.add_wire(slot.w, name)?);
        }
        for _ in open {
            w.upscope()?;
        }
        w.enddefinitions()?;
        Ok(VcdDump {
            w,
            last: vec![None; ids.len()],
            ids,
            error: None,
        })
    }

    pub fn sample(&mut self, m: &Machine, flat: &Flat, time: u64) {
        if self.error.is_some() {
            return;
        }
        let r = (|| -> io::Result<()> {
            self.w.timestamp(time)?;
            for (i, (_, _, slot)) in flat.named.iter().enumerate() {
                let v = m.words(*slot);
                if self.last[i].as_ref() == Some(&v) {
                    continue;
                }
                let bits = (0..slot.w).rev().map(|b| {
                    if (v[(b / 64) as usize] >> (b % 64)) & 1 == 1 {
                        Value::V1
                    } else {
                        Value::V0
                    }
                });
                if slot.w == 1 {
                    self.w.change_scalar(
                        self.ids[i],
                        if v[0] & 1 == 1 { Value::V1 } else { Value::V0 },
                    )?;
                } else {
                    self.w.change_vector(self.ids[i], bits)?;
                }
                self.last[i] = Some(v);
            }
            Ok(())
        })();
        if let Err(e) = r {
            self.error = Some(e);
        }
    }

    pub fn flush(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.w.flush()
    }
}
