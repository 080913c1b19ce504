//! Declarative parameter descriptions: every parameter of a design with its meaning and
//! the values it accepts (an integer range, a power-of-two rule, a set of strings, or a
//! nested table of parameters). The registry checks every value against these before a
//! design is built, the parameter structs' `validate` checks their fields against them,
//! and `accelgen list` shows them: the range listed is the range enforced. Rules across
//! parameters (a bank count dividing an entry count, RAM alignment) stay in each design's
//! `validate`.

use crate::ParamError;
use serde::Serialize;

/// The values a parameter accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An integer in `min..=max`, a power of two if `pow2`; `hex` shows it in hexadecimal.
    Integer {
        min: u64,
        max: u64,
        pow2: bool,
        hex: bool,
    },
    Boolean,
    /// A string, one of these.
    Choice(&'static [&'static str]),
    /// A table of parameters; keys left out of a given table take their defaults.
    Table(Vec<Param>),
}

/// One parameter: its key, its meaning and the values it accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub doc: &'static str,
    pub kind: Kind,
}

/// A value that does not fit its description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invalid {
    /// `path` (dotted) names no parameter of `table` (the dotted path of the table it
    /// would be in, empty at the top), whose parameters are `known`.
    Unknown {
        path: String,
        table: String,
        known: Vec<&'static str>,
    },
    /// A parameter with a value it does not accept; `param` is the dotted path.
    Value(ParamError),
}

impl Param {
    /// An integer in `min..=max`.
    pub fn int(name: &'static str, min: u64, max: u64, doc: &'static str) -> Param {
        let kind = Kind::Integer {
            min,
            max,
            pow2: false,
            hex: false,
        };
        Param { name, doc, kind }
    }

    /// This integer must also be a power of two.
    pub fn pow2(mut self) -> Param {
        if let Kind::Integer { pow2, .. } = &mut self.kind {
            *pow2 = true;
        }
        self
    }

    /// This integer (an address or size) is shown in hexadecimal.
    pub fn hex(mut self) -> Param {
        if let Kind::Integer { hex, .. } = &mut self.kind {
            *hex = true;
        }
        self
    }

    pub fn boolean(name: &'static str, doc: &'static str) -> Param {
        let kind = Kind::Boolean;
        Param { name, doc, kind }
    }

    pub fn choice(
        name: &'static str,
        choices: &'static [&'static str],
        doc: &'static str,
    ) -> Param {
        let kind = Kind::Choice(choices);
        Param { name, doc, kind }
    }

    pub fn table(name: &'static str, params: Vec<Param>, doc: &'static str) -> Param {
        let kind = Kind::Table(params);
        Param { name, doc, kind }
    }

    /// The TOML type of the parameter's values (as `toml::Value::type_str` names them).
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Integer { .. } => "integer",
            Kind::Boolean => "boolean",
            Kind::Choice(_) => "string",
            Kind::Table(_) => "table",
        }
    }

    /// The accepted values, for people: `1..=64, pow2`, `none|bht|btb`, or empty (any
    /// boolean, or a table).
    pub fn range(&self) -> String {
        match &self.kind {
            &Kind::Integer {
                min,
                max,
                pow2,
                hex,
            } => {
                let range = format!("{}..={}", number(min.into(), hex), number(max.into(), hex));
                if pow2 {
                    format!("{range}, pow2")
                } else {
                    range
                }
            }
            Kind::Choice(choices) => choices.join("|"),
            Kind::Boolean | Kind::Table(_) => String::new(),
        }
    }

    /// Checks `value` of this parameter, whose dotted path is `path`.
    pub fn check(&self, path: &str, value: &toml::Value) -> Result<(), Invalid> {
        let invalid = |message: String| Invalid::Value(ParamError::new(path, message));
        if value.type_str() != self.type_name() {
            return Err(invalid(format!(
                "must be {} {}, got {} {} `{value}`",
                article(self.type_name()),
                self.type_name(),
                article(value.type_str()),
                value.type_str(),
            )));
        }
        let message = match (&self.kind, value) {
            (
                &Kind::Integer {
                    min,
                    max,
                    pow2,
                    hex,
                },
                &toml::Value::Integer(v),
            ) => {
                let v = i128::from(v);
                if v < min.into() || v > max.into() {
                    let (lo, hi) = (number(min.into(), hex), number(max.into(), hex));
                    format!("must be in {lo}..={hi}, got {}", number(v, hex))
                } else if pow2 && !(v as u64).is_power_of_two() {
                    format!("must be a power of two, got {}", number(v, hex))
                } else {
                    return Ok(());
                }
            }
            (Kind::Choice(choices), toml::Value::String(v)) if !choices.contains(&v.as_str()) => {
                let quoted: Vec<String> = choices.iter().map(|c| format!("{c:?}")).collect();
                format!("must be one of {}, got {v:?}", quoted.join(", "))
            }
            (Kind::Table(params), toml::Value::Table(t)) => return check_table(params, path, t),
            _ => return Ok(()),
        };
        Err(invalid(message))
    }
}

/// Checks every entry of `table` (the table at dotted path `prefix`, empty at the top)
/// against `params`: an unknown key, or a value of the wrong type or out of range, is an
/// error naming the parameter's dotted path.
pub fn check_table(params: &[Param], prefix: &str, table: &toml::Table) -> Result<(), Invalid> {
    for (key, value) in table {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        let Some(param) = params.iter().find(|p| p.name == key) else {
            return Err(Invalid::Unknown {
                path,
                table: prefix.to_string(),
                known: params.iter().map(|p| p.name).collect(),
            });
        };
        param.check(&path, value)?;
    }
    Ok(())
}

/// Checks the fields of a parameter struct against `params` (its description).
pub fn check_fields<T: Serialize>(params: &[Param], value: &T) -> Result<(), ParamError> {
    let table = toml::Table::try_from(value).expect("parameter structs serialize as tables");
    check_table(params, "", &table).map_err(|e| match e {
        Invalid::Value(e) => e,
        // A field without a description is the description's bug; say so.
        Invalid::Unknown { path, .. } => ParamError::new(path, "has no description"),
    })
}

fn number(v: i128, hex: bool) -> String {
    match (hex, v < 0) {
        (false, _) => v.to_string(),
        (true, false) => format!("{v:#x}"),
        (true, true) => format!("-{:#x}", -v),
    }
}

/// `a` or `an` before a type name.
fn article(type_name: &str) -> &'static str {
    if type_name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> toml::Value {
        let mut t: toml::Table = format!("v = {text}").parse().unwrap();
        t.remove("v").unwrap()
    }

    fn message(p: &Param, text: &str) -> String {
        match p.check("t.x", &value(text)) {
            Ok(()) => "ok".into(),
            Err(Invalid::Value(e)) => e.to_string(),
            Err(e) => format!("{e:?}"),
        }
    }

    #[test]
    fn integers_are_checked_against_range_then_power_of_two() {
        let p = Param::int("x", 2, 64, "").pow2();
        assert_eq!(p.range(), "2..=64, pow2");
        assert_eq!(message(&p, "2"), "ok");
        assert_eq!(message(&p, "64"), "ok");
        assert_eq!(message(&p, "1"), "parameter `t.x` must be in 2..=64, got 1");
        assert_eq!(
            message(&p, "128"),
            "parameter `t.x` must be in 2..=64, got 128"
        );
        assert_eq!(
            message(&p, "-1"),
            "parameter `t.x` must be in 2..=64, got -1"
        );
        assert_eq!(
            message(&p, "48"),
            "parameter `t.x` must be a power of two, got 48"
        );
        assert_eq!(
            message(&p, "\"8\""),
            "parameter `t.x` must be an integer, got a string `\"8\"`"
        );
        let h = Param::int("x", 0x2000, 0xffff_ffff, "").hex();
        assert_eq!(h.range(), "0x2000..=0xffffffff");
        assert_eq!(
            message(&h, "-5"),
            "parameter `t.x` must be in 0x2000..=0xffffffff, got -0x5"
        );
        // The extremes of TOML's integers.
        let big = Param::int("x", 0, u64::MAX, "");
        assert_eq!(message(&big, &i64::MAX.to_string()), "ok");
        assert_eq!(
            message(&big, &i64::MIN.to_string()),
            format!(
                "parameter `t.x` must be in 0..={}, got {}",
                u64::MAX,
                i64::MIN
            )
        );
    }

    #[test]
    fn choices_booleans_and_tables() {
        let c = Param::choice("x", &["a", "b"], "");
        assert_eq!(c.range(), "a|b");
        assert_eq!(message(&c, "\"b\""), "ok");
        assert_eq!(
            message(&c, "\"c\""),
            "parameter `t.x` must be one of \"a\", \"b\", got \"c\""
        );
        let b = Param::boolean("x", "");
        assert_eq!(
            (b.range(), message(&b, "true")),
            (String::new(), "ok".into())
        );
        assert_eq!(
            message(&b, "1"),
            "parameter `t.x` must be a boolean, got an integer `1`"
        );
        let t = Param::table("x", vec![Param::int("n", 1, 4, "")], "");
        assert_eq!(message(&t, "{ n = 2 }"), "ok");
        assert_eq!(message(&t, "{}"), "ok");
        assert_eq!(
            message(&t, "{ n = 5 }"),
            "parameter `t.x.n` must be in 1..=4, got 5"
        );
        assert_eq!(
            t.check("t.x", &value("{ m = 5 }")),
            Err(Invalid::Unknown {
                path: "t.x.m".into(),
                table: "t.x".into(),
                known: vec!["n"],
            })
        );
        assert_eq!(
            message(&t, "[1]"),
            "parameter `t.x` must be a table, got an array `[1]`"
        );
    }
}
