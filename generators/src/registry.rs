//! The design registry: every design by name, with its parameters (for `accelgen list`),
//! and elaboration from a TOML table of parameter overrides.

use crate::arith::Multiplier;
use crate::board::RocketBoard;
use crate::examples::{banked_rf::BankedRf, queue::Queue, rocc_accumulator::RocketAccumulator};
use crate::fgsimt::{avc::Avc, dws::Dws, Fgsimt};
use crate::fpu::{compare::Compare, convert::Convert, divsqrt::DivSqrt, fma::FmaDesign};
use crate::hwacha::soc::RocketHwacha;
use crate::l2::L2;
use crate::rocket::Rocket;
use crate::schema::{self, Invalid, Kind, Param};
use crate::vgiw::Vgiw;
use crate::{GenError, Generator, ParamError};
use hdl::Module;
use std::rc::Rc;

/// One parameter of a design, nested ones included (after their table).
#[derive(Clone, Debug)]
pub struct ParamInfo {
    /// Dotted path: `depth`, `hwacha.lanes`.
    pub name: String,
    /// The default; `None` for a table (its parameters follow, each with its default).
    pub default: Option<toml::Value>,
    /// Type, accepted values and meaning.
    pub param: Param,
}

/// A design's parameters after defaults and overrides, and its top module.
pub struct Elaboration {
    /// Every parameter.
    pub params: toml::Table,
    pub top: Rc<Module>,
}

/// A design as the registry knows it.
pub struct DesignInfo {
    pub name: &'static str,
    pub description: &'static str,
    /// In declaration order, each table followed by its parameters.
    pub params: Vec<ParamInfo>,
    elaborate: fn(&toml::Table) -> Result<Elaboration, GenError>,
    validate: fn(&toml::Table) -> Result<toml::Table, GenError>,
}

impl DesignInfo {
    fn of<G: Generator>() -> DesignInfo {
        let mut params = Vec::new();
        flatten(&G::params(), "", &defaults::<G>(), &mut params);
        DesignInfo {
            name: G::NAME,
            description: G::DESCRIPTION,
            params,
            elaborate: elaborate_as::<G>,
            validate: validate_as::<G>,
        }
    }

    /// Elaborates with `overrides` on top of the defaults; unknown, ill-typed or invalid
    /// parameters are errors naming the parameter.
    pub fn elaborate(&self, overrides: &toml::Table) -> Result<Elaboration, GenError> {
        (self.elaborate)(overrides)
    }

    /// Every parameter after `overrides` on top of the defaults, checked as
    /// [`DesignInfo::elaborate`] checks them, without building the design: cheap.
    pub fn validate(&self, overrides: &toml::Table) -> Result<toml::Table, GenError> {
        (self.validate)(overrides)
    }
}

/// Appends `params` (the table at dotted path `prefix`, with defaults `defaults`) to
/// `out`, each table followed by its own parameters.
fn flatten(params: &[Param], prefix: &str, defaults: &toml::Table, out: &mut Vec<ParamInfo>) {
    for p in params {
        let name = if prefix.is_empty() {
            p.name.to_string()
        } else {
            format!("{prefix}.{}", p.name)
        };
        let default = defaults
            .get(p.name)
            .unwrap_or_else(|| panic!("described parameter `{name}` has no default"));
        if let (Kind::Table(inner), toml::Value::Table(table)) = (&p.kind, default) {
            out.push(ParamInfo {
                name: name.clone(),
                default: None,
                param: p.clone(),
            });
            flatten(inner, &name, table, out);
        } else {
            out.push(ParamInfo {
                name,
                default: Some(default.clone()),
                param: p.clone(),
            });
        }
    }
}

/// Every design, in the order `accelgen list` shows them.
pub fn designs() -> Vec<DesignInfo> {
    vec![
        DesignInfo::of::<BankedRf>(),
        DesignInfo::of::<Queue>(),
        DesignInfo::of::<Multiplier>(),
        DesignInfo::of::<Rocket>(),
        DesignInfo::of::<RocketAccumulator>(),
        DesignInfo::of::<RocketHwacha>(),
        DesignInfo::of::<RocketBoard>(),
        DesignInfo::of::<Compare>(),
        DesignInfo::of::<Convert>(),
        DesignInfo::of::<DivSqrt>(),
        DesignInfo::of::<FmaDesign>(),
        DesignInfo::of::<Fgsimt>(),
        DesignInfo::of::<Vgiw>(),
        DesignInfo::of::<L2>(),
        DesignInfo::of::<Avc>(),
        DesignInfo::of::<Dws>(),
    ]
}

pub fn design(name: &str) -> Result<DesignInfo, GenError> {
    let all = designs();
    let available = all.iter().map(|d| d.name).collect::<Vec<_>>().join(", ");
    all.into_iter()
        .find(|d| d.name == name)
        .ok_or_else(|| GenError::UnknownDesign {
            name: name.to_string(),
            available,
        })
}

/// The top module of design `name` with parameters `overrides` on top of the defaults.
pub fn elaborate(name: &str, overrides: &toml::Table) -> Result<Rc<Module>, GenError> {
    Ok(design(name)?.elaborate(overrides)?.top)
}

fn defaults<G: Generator>() -> toml::Table {
    toml::Table::try_from(G::Params::default())
        .unwrap_or_else(|e| panic!("{}: default parameters are not a TOML table: {e}", G::NAME))
}

/// The parameters of `G` with `overrides` on top of the defaults, every value checked.
fn checked_params<G: Generator>(overrides: &toml::Table) -> Result<G::Params, GenError> {
    let invalid = |e: ParamError| GenError::InvalidParameter {
        design: G::NAME.to_string(),
        param: e.param,
        message: e.message,
    };
    // Every value is checked against its description first, so that each error names its
    // parameter (serde's do not) and values out of range never reach the generator.
    schema::check_table(&G::params(), "", overrides).map_err(|e| match e {
        Invalid::Value(e) => invalid(e),
        Invalid::Unknown { path, table, known } => GenError::UnknownParameter {
            design: G::NAME.to_string(),
            param: path,
            table: (!table.is_empty()).then_some(table),
            known: known.join(", "),
        },
    })?;
    let mut all = defaults::<G>();
    // A partial nested table takes its struct's defaults for the rest (`serde(default)`).
    all.extend(overrides.iter().map(|(k, v)| (k.clone(), v.clone())));
    let params: G::Params = toml::Value::Table(all)
        .try_into()
        .unwrap_or_else(|e| panic!("{}: checked parameters do not deserialize: {e}", G::NAME));
    G::validate(&params).map_err(invalid)?;
    Ok(params)
}

fn as_table<P: serde::Serialize>(params: &P) -> toml::Table {
    toml::Table::try_from(params).expect("parameters serialize as they deserialize")
}

fn validate_as<G: Generator>(overrides: &toml::Table) -> Result<toml::Table, GenError> {
    checked_params::<G>(overrides).map(|p| as_table(&p))
}

fn elaborate_as<G: Generator>(overrides: &toml::Table) -> Result<Elaboration, GenError> {
    let params = checked_params::<G>(overrides)?;
    let top = G::build(&params).map_err(|errors| GenError::Elaboration {
        design: G::NAME.to_string(),
        errors,
    })?;
    Ok(Elaboration {
        params: as_table(&params),
        top,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `params` describes exactly the keys of `defaults`, recursively, and every default
    /// has its described type and lies in its described range.
    fn described_exactly(design: &str, params: &[Param], defaults: &toml::Table) {
        let mut described: Vec<&str> = params.iter().map(|p| p.name).collect();
        let mut fields: Vec<&str> = defaults.keys().map(String::as_str).collect();
        described.sort_unstable();
        fields.sort_unstable();
        assert_eq!(described, fields, "{design}: description vs. Params fields");
        assert_eq!(
            schema::check_table(params, "", defaults),
            Ok(()),
            "{design}"
        );
        for p in params {
            if let (Kind::Table(inner), Some(toml::Value::Table(t))) =
                (&p.kind, defaults.get(p.name))
            {
                described_exactly(design, inner, t);
            }
        }
    }

    fn describes_its_struct<G: Generator>() {
        described_exactly(G::NAME, &G::params(), &defaults::<G>());
    }

    #[test]
    fn every_parameter_is_described_once() {
        describes_its_struct::<Queue>();
        describes_its_struct::<Multiplier>();
        describes_its_struct::<BankedRf>();
        describes_its_struct::<Rocket>();
        describes_its_struct::<RocketAccumulator>();
        describes_its_struct::<RocketHwacha>();
        describes_its_struct::<RocketBoard>();
        describes_its_struct::<DivSqrt>();
        describes_its_struct::<FmaDesign>();
        describes_its_struct::<Convert>();
        describes_its_struct::<Compare>();
        describes_its_struct::<Fgsimt>();
        describes_its_struct::<Vgiw>();
        describes_its_struct::<L2>();
        describes_its_struct::<Avc>();
        describes_its_struct::<Dws>();
        assert_eq!(designs().len(), 16);
    }

    /// Every value a parameter's description accepts at its extremes (each integer's
    /// minimum and maximum, every string and boolean), the others at their defaults,
    /// either elaborates or is refused by a rule across parameters: none reaches the
    /// generator as an elaboration error. A failure here is a missing range.
    #[test]
    fn accepted_extremes_elaborate() {
        let mut tried = 0;
        for d in designs() {
            for p in &d.params {
                let values: Vec<toml::Value> = match &p.param.kind {
                    &Kind::Integer { min, max, .. } => {
                        [min, max].map(|v| toml::Value::Integer(v as i64)).to_vec()
                    }
                    Kind::Boolean => vec![false.into(), true.into()],
                    Kind::Choice(c) => c.iter().map(|&v| v.into()).collect(),
                    Kind::Table(_) => vec![],
                };
                for v in values {
                    let what = format!("{} {} = {v}", d.name, p.name);
                    match d.elaborate(&crate::overrides::dotted(&p.name, v)) {
                        Ok(_) | Err(GenError::InvalidParameter { .. }) => tried += 1,
                        Err(e) => panic!("{what}: {e}"),
                    }
                }
            }
        }
        assert!(tried > 150, "{tried}");
    }
}
