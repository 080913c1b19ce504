//! Bundles: named groups of fields (nested, some flipped) that become flat ports or
//! wires and connect as a whole. `Decoupled` and `Valid` are the common interfaces.

use crate::builder::Value;

#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    UInt(u32),
    SInt(u32),
    Bundle(Vec<Field>),
    Vec(u32, Box<Shape>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Field {
    pub name: String,
    pub shape: Shape,
    /// Flows against the bundle's direction (e.g. `ready` of a ready/valid interface).
    pub flipped: bool,
}

impl Shape {
    pub fn bundle(fields: Vec<Field>) -> Shape {
        Shape::Bundle(fields)
    }

    pub fn field(name: &str, shape: Shape) -> Field {
        Field {
            name: name.to_string(),
            shape,
            flipped: false,
        }
    }

    pub fn flipped(name: &str, shape: Shape) -> Field {
        Field {
            name: name.to_string(),
            shape,
            flipped: true,
        }
    }

    /// Ready/valid handshake carrying `bits`, seen from the producer.
    pub fn decoupled(bits: Shape) -> Shape {
        Shape::Bundle(vec![
            Shape::field("valid", Shape::UInt(1)),
            Shape::flipped("ready", Shape::UInt(1)),
            Shape::field("bits", bits),
        ])
    }

    /// Valid-qualified `bits` without back-pressure.
    pub fn valid(bits: Shape) -> Shape {
        Shape::Bundle(vec![
            Shape::field("valid", Shape::UInt(1)),
            Shape::field("bits", bits),
        ])
    }

    /// Leaves in declaration order: (flat name suffix, width, signed, flipped).
    pub fn leaves(&self, prefix: &str) -> Vec<(String, u32, bool, bool)> {
        let mut out = Vec::new();
        self.collect(prefix, false, &mut out);
        out
    }

    fn collect(&self, name: &str, flipped: bool, out: &mut Vec<(String, u32, bool, bool)>) {
        match self {
            Shape::UInt(w) => out.push((name.to_string(), *w, false, flipped)),
            Shape::SInt(w) => out.push((name.to_string(), *w, true, flipped)),
            Shape::Bundle(fields) => {
                for f in fields {
                    f.shape
                        .collect(&format!("{name}_{}", f.name), flipped ^ f.flipped, out);
                }
            }
            Shape::Vec(n, elem) => {
                for i in 0..*n {
                    elem.collect(&format!("{name}_{i}"), flipped, out);
                }
            }
        }
    }
}

/// Hardware values arranged in a shape. Leaves are signals (ports, wires or instance
/// ports) so bundles can be connection targets.
#[derive(Clone, Debug)]
pub enum Bundle {
    Leaf(Value),
    Fields(Vec<(String, bool, Bundle)>),
    Vec(Vec<Bundle>),
}

impl Bundle {
    /// Builds a bundle of `shape` from its leaves in `Shape::leaves` order.
    pub(crate) fn from_leaves(shape: &Shape, leaves: &mut impl Iterator<Item = Value>) -> Bundle {
        match shape {
            Shape::UInt(_) | Shape::SInt(_) => Bundle::Leaf(leaves.next().expect("leaf count")),
            Shape::Bundle(fields) => Bundle::Fields(
                fields
                    .iter()
                    .map(|f| {
                        (
                            f.name.clone(),
                            f.flipped,
                            Bundle::from_leaves(&f.shape, leaves),
                        )
                    })
                    .collect(),
            ),
            Shape::Vec(n, elem) => {
                Bundle::Vec((0..*n).map(|_| Bundle::from_leaves(elem, leaves)).collect())
            }
        }
    }

    /// The field `name`; panics if absent, as a field name is a fixed part of the generator.
    /// `cond ? then : otherwise`, leaf by leaf; the bundles have the same shape.
    pub fn mux(cond: &Value, then: &Bundle, otherwise: &Bundle) -> Bundle {
        match (then, otherwise) {
            (Bundle::Leaf(a), Bundle::Leaf(b)) => Bundle::Leaf(cond.mux(a, b)),
            (Bundle::Fields(a), Bundle::Fields(b)) => Bundle::Fields(
                a.iter()
                    .zip(b)
                    .map(|((n, f, x), (_, _, y))| (n.clone(), *f, Bundle::mux(cond, x, y)))
                    .collect(),
            ),
            (Bundle::Vec(a), Bundle::Vec(b)) => Bundle::Vec(
                a.iter()
                    .zip(b)
                    .map(|(x, y)| Bundle::mux(cond, x, y))
                    .collect(),
            ),
            _ => panic!("Bundle::mux of bundles of different shapes"),
        }
    }

    pub fn get(&self, name: &str) -> &Bundle {
        match self {
            Bundle::Fields(fields) => match fields.iter().find(|(n, _, _)| n == name) {
                Some((_, _, b)) => b,
                None => panic!("bundle has no field `{name}`"),
            },
            _ => panic!("`{name}` looked up in a bundle that is not a record"),
        }
    }

    /// Element `i` of a vector bundle.
    #[allow(clippy::should_implement_trait)]
    pub fn index(&self, i: usize) -> &Bundle {
        match self {
            Bundle::Vec(v) => &v[i],
            _ => panic!("index {i} into a bundle that is not a vector"),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Bundle::Vec(v) => v.len(),
            Bundle::Fields(f) => f.len(),
            Bundle::Leaf(_) => 1,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn value(&self) -> &Value {
        match self {
            Bundle::Leaf(v) => v,
            _ => panic!("bundle is not a leaf"),
        }
    }

    /// Shorthands for ready/valid bundles.
    pub fn valid(&self) -> &Value {
        self.get("valid").value()
    }

    pub fn ready(&self) -> &Value {
        self.get("ready").value()
    }

    pub fn bits(&self) -> &Bundle {
        self.get("bits")
    }

    /// `valid & ready`.
    #[track_caller]
    pub fn fire(&self) -> Value {
        self.valid() & self.ready()
    }

    /// All leaves with their flip parity, in declaration order.
    pub fn leaves(&self) -> Vec<(&Value, bool)> {
        let mut out = Vec::new();
        self.collect(false, &mut out);
        out
    }

    fn collect<'a>(&'a self, flipped: bool, out: &mut Vec<(&'a Value, bool)>) {
        match self {
            Bundle::Leaf(v) => out.push((v, flipped)),
            Bundle::Fields(f) => f.iter().for_each(|(_, fl, b)| b.collect(flipped ^ fl, out)),
            Bundle::Vec(v) => v.iter().for_each(|b| b.collect(flipped, out)),
        }
    }
}
