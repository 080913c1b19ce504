//! A reader for the parts of a Liberty (`.lib`, or gzip-compressed `.lib.gz`) cell library
//! the flows need: the library's name and units, and per cell its area, its pins with
//! direction and function, and whether it is sequential (an `ff`, `latch` or `statetable`
//! group). Timing and power tables are parsed over and not kept.

use flate2::read::GzDecoder;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum LibertyError {
    #[error("cannot read Liberty file {}: {err}", path.display())]
    Read { path: PathBuf, err: std::io::Error },
    #[error("{}: not a Liberty library: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

/// One pin of a cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Pin {
    pub name: String,
    /// `input`, `output`, `inout` or `internal`.
    pub direction: String,
    /// The Boolean function of an output pin, as written (`"(A1 & A2)"`).
    pub function: Option<String>,
}

/// One cell of the library.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub name: String,
    pub area: f64,
    pub pins: Vec<Pin>,
    /// Holds state: has an `ff`, `latch`, `ff_bank`, `latch_bank` or `statetable` group.
    pub sequential: bool,
    pub dont_use: bool,
}

impl Cell {
    /// The cell's pins of direction `dir`.
    pub fn pins_of<'a>(&'a self, dir: &'a str) -> impl Iterator<Item = &'a Pin> {
        self.pins.iter().filter(move |p| p.direction == dir)
    }
}

/// A cell library.
#[derive(Clone, Debug)]
pub struct Library {
    /// The name in `library (NAME)`.
    pub name: String,
    /// `time_unit`, e.g. `1ns`.
    pub time_unit: String,
    pub cells: BTreeMap<String, Cell>,
}

/// The text of Liberty file `path`, decompressed when its name ends in `.gz`.
pub fn read_text(path: &Path) -> Result<String, LibertyError> {
    let read_err = |err| LibertyError::Read {
        path: path.to_path_buf(),
        err,
    };
    let bytes = std::fs::read(path).map_err(read_err)?;
    let mut text = String::new();
    if path.extension().is_some_and(|e| e == "gz") {
        GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .map_err(read_err)?;
    } else {
        text = String::from_utf8(bytes).map_err(|e| LibertyError::Invalid {
            path: path.to_path_buf(),
            message: format!("not UTF-8 text ({e})"),
        })?;
    }
    Ok(text)
}

impl Library {
    /// Reads and parses Liberty file `path` (`.lib` or `.lib.gz`).
    pub fn read(path: &Path) -> Result<Library, LibertyError> {
        let text = read_text(path)?;
        Library::parse(&text).map_err(|message| LibertyError::Invalid {
            path: path.to_path_buf(),
            message,
        })
    }

    /// Parses Liberty text; the error says what was wrong where.
    pub fn parse(text: &str) -> Result<Library, String> {
        let mut p = Parser::new(text);
        let root = p.group_statement()?;
        if root.kind != "library" {
            return Err(format!(
                "starts with `{}` instead of `library (...)`",
                root.kind
            ));
        }
        let name = root.args.first().cloned().unwrap_or_default();
        let mut cells = BTreeMap::new();
        for g in root.groups.iter().filter(|g| g.kind == "cell") {
            let cell = to_cell(g)?;
            cells.insert(cell.name.clone(), cell);
        }
        Ok(Library {
            name,
            time_unit: root.attr("time_unit").unwrap_or("1ns").to_string(),
            cells,
        })
    }

    /// The smallest cell whose single output copies its single input (`Z = A`), with its
    /// input and output pin names.
    pub fn buffer(&self) -> Option<(&Cell, &str, &str)> {
        self.smallest(|c| {
            let ins: Vec<&Pin> = c.pins_of("input").collect();
            let outs: Vec<&Pin> = c.pins_of("output").collect();
            match (ins.as_slice(), outs.as_slice()) {
                ([i], [o]) if o.function.as_deref().map(strip) == Some(i.name.clone()) => {
                    Some((i.name.as_str(), o.name.as_str()))
                }
                _ => None,
            }
        })
        .map(|(c, (i, o))| (c, i, o))
    }

    /// The smallest tie cell driving constant `value` ("1" or "0") and its output pin.
    pub fn tie(&self, value: &str) -> Option<(&Cell, &str)> {
        self.smallest(|c| {
            let none_in = c.pins_of("input").next().is_none();
            let pin = c
                .pins_of("output")
                .find(|p| p.function.as_deref().map(strip).as_deref() == Some(value));
            pin.filter(|_| none_in).map(|p| p.name.as_str())
        })
    }

    /// The usable cell of least area for which `matches` gives something, and that thing.
    fn smallest<'a, T>(&'a self, matches: impl Fn(&'a Cell) -> Option<T>) -> Option<(&'a Cell, T)> {
        self.cells
            .values()
            .filter(|c| !c.dont_use && !c.sequential)
            .filter_map(|c| matches(c).map(|t| (c, t)))
            .min_by(|a, b| a.0.area.total_cmp(&b.0.area).then(a.0.name.cmp(&b.0.name)))
    }
}

/// A function without quotes, blanks and outer parentheses.
fn strip(f: &str) -> String {
    let mut s: String = f
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '"')
        .collect();
    while s.starts_with('(') && s.ends_with(')') {
        s = s[1..s.len() - 1].to_string();
    }
    s
}

fn to_cell(g: &Group) -> Result<Cell, String> {
    let name = g.args.first().cloned().unwrap_or_default();
    let area = match g.attr("area") {
        Some(a) => a
            .parse::<f64>()
            .map_err(|_| format!("cell {name}: area {a:?} is not a number"))?,
        None => 0.0,
    };
    let mut pins = Vec::new();
    for p in &g.groups {
        let names: Vec<String> = match p.kind.as_str() {
            "pin" => p.args.clone(),
            "bus" => p
                .groups
                .iter()
                .filter(|q| q.kind == "pin")
                .flat_map(|q| q.args.clone())
                .collect(),
            _ => continue,
        };
        let names = if names.is_empty() {
            p.args.clone()
        } else {
            names
        };
        for n in names {
            pins.push(Pin {
                name: n,
                direction: p.attr("direction").unwrap_or("").to_string(),
                function: p.attr("function").map(str::to_string),
            });
        }
    }
    let sequential = g.groups.iter().any(|s| {
        matches!(
            s.kind.as_str(),
            "ff" | "latch" | "ff_bank" | "latch_bank" | "statetable"
        )
    });
    Ok(Cell {
        name,
        area,
        pins,
        sequential,
        dont_use: g.attr("dont_use") == Some("true"),
    })
}

/// A Liberty group: `kind (args) { attributes and groups }`.
#[derive(Default)]
struct Group {
    kind: String,
    args: Vec<String>,
    attrs: Vec<(String, String)>,
    groups: Vec<Group>,
}

impl Group {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Groups whose contents are kept; every other group (timing, power, tables) is skipped.
const KEPT: [&str; 9] = [
    "library",
    "cell",
    "pin",
    "bus",
    "ff",
    "latch",
    "ff_bank",
    "latch_bank",
    "statetable",
];

#[derive(Clone, Debug, PartialEq)]
enum Tok<'a> {
    Word(&'a str),
    Str(&'a str),
    Punct(char),
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser { text, pos: 0 }
    }

    fn line(&self) -> usize {
        self.text[..self.pos].matches('\n').count() + 1
    }

    fn err(&self, what: &str) -> String {
        format!("line {}: {what}", self.line())
    }

    /// Skips blanks, comments and line continuations.
    fn skip(&mut self) {
        loop {
            let rest = &self.text[self.pos..];
            let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '\\');
            self.pos += rest.len() - trimmed.len();
            if let Some(body) = trimmed.strip_prefix("/*") {
                self.pos += 2 + body.find("*/").map_or(body.len(), |i| i + 2);
            } else if trimmed.starts_with("//") {
                self.pos += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    fn next(&mut self) -> Option<Tok<'a>> {
        self.skip();
        let rest = &self.text[self.pos..];
        let c = rest.chars().next()?;
        if c == '"' {
            let end = rest[1..].find('"').map_or(rest.len(), |i| i + 2);
            self.pos += end;
            return Some(Tok::Str(rest[1..end.saturating_sub(1).max(1)].trim()));
        }
        if "(){}:;,".contains(c) {
            self.pos += 1;
            return Some(Tok::Punct(c));
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || "(){}:;,\"".contains(c))
            .unwrap_or(rest.len());
        self.pos += end;
        Some(Tok::Word(&rest[..end]))
    }

    fn peek(&mut self) -> Option<Tok<'a>> {
        let save = self.pos;
        let t = self.next();
        self.pos = save;
        t
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        match self.next() {
            Some(Tok::Punct(p)) if p == c => Ok(()),
            t => Err(self.err(&format!("expected `{c}`, found {t:?}"))),
        }
    }

    /// The comma-separated arguments up to the closing parenthesis.
    fn args(&mut self) -> Result<Vec<String>, String> {
        let mut args = Vec::new();
        loop {
            match self.next() {
                Some(Tok::Punct(')')) => return Ok(args),
                Some(Tok::Punct(',')) => {}
                Some(Tok::Word(w)) | Some(Tok::Str(w)) => args.push(w.to_string()),
                t => return Err(self.err(&format!("unexpected {t:?} in arguments"))),
            }
        }
    }

    /// `kind (args) { ... }` at the current position.
    fn group_statement(&mut self) -> Result<Group, String> {
        let kind = match self.next() {
            Some(Tok::Word(w)) => w.to_string(),
            t => return Err(self.err(&format!("expected a group, found {t:?}"))),
        };
        self.expect('(')?;
        let args = self.args()?;
        self.expect('{')?;
        let mut g = Group {
            kind,
            args,
            ..Group::default()
        };
        self.body(&mut g)?;
        Ok(g)
    }

    /// Statements up to the group's closing brace.
    fn body(&mut self, g: &mut Group) -> Result<(), String> {
        let keep = KEPT.contains(&g.kind.as_str());
        loop {
            let name = match self.next() {
                Some(Tok::Punct('}')) => return Ok(()),
                Some(Tok::Punct(';')) => continue,
                Some(Tok::Word(w)) => w,
                t => return Err(self.err(&format!("unexpected {t:?} in group {}", g.kind))),
            };
            match self.next() {
                Some(Tok::Punct(':')) => {
                    let value = match self.next() {
                        Some(Tok::Word(w)) | Some(Tok::Str(w)) => w,
                        t => return Err(self.err(&format!("attribute {name}: value {t:?}"))),
                    };
                    if keep {
                        g.attrs.push((name.to_string(), value.to_string()));
                    }
                }
                Some(Tok::Punct('(')) => {
                    let args = self.args()?;
                    if self.peek() == Some(Tok::Punct('{')) {
                        self.next();
                        let mut sub = Group {
                            kind: name.to_string(),
                            args,
                            ..Group::default()
                        };
                        self.body(&mut sub)?;
                        if keep {
                            g.groups.push(sub);
                        }
                    }
                }
                t => return Err(self.err(&format!("after `{name}`: unexpected {t:?}"))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &str = r#"
/* a comment */
library (tiny) {
  time_unit : "1ns";
  capacitive_load_unit (1, ff);
  cell (BUF_X1) { area : 1.0; pin (A) { direction : input; }
    pin (Z) { direction : output; function : "A";
      timing () { values ("1, 2", \
        "3, 4"); } } }
  cell (BUF_X2) { area : 2.0; pin (A) { direction : input; }
    pin (Z) { direction : output; function : "(A)"; } }
  cell (TIEH) { area : 0.5; pin (H) { direction : output; function : "1"; } }
  cell (DFF) { area : 4.5; ff (IQ, IQN) { next_state : "D"; clocked_on : "CK"; }
    pin (D) { direction : input; } pin (CK) { direction : input; clock : true; }
    pin (Q) { direction : output; function : "IQ"; } }
}
"#;

    #[test]
    fn cells_areas_and_special_cells() {
        let lib = Library::parse(LIB).unwrap();
        assert_eq!(lib.name, "tiny");
        assert_eq!(lib.time_unit, "1ns");
        assert_eq!(lib.cells.len(), 4);
        assert!(lib.cells["DFF"].sequential && !lib.cells["BUF_X1"].sequential);
        assert_eq!(lib.cells["DFF"].area, 4.5);
        let (buf, a, z) = lib.buffer().unwrap();
        assert_eq!((buf.name.as_str(), a, z), ("BUF_X1", "A", "Z"));
        assert_eq!(
            lib.tie("1").map(|(c, p)| (c.name.as_str(), p)),
            Some(("TIEH", "H"))
        );
        assert!(lib.tie("0").is_none());
    }

    #[test]
    fn malformed_text_is_an_error_with_a_line() {
        let e = Library::parse("library (x) {\n cell (A) { area : ; }\n}").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        assert!(Library::parse("module m; endmodule").is_err());
    }
}
