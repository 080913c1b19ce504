//! Parameter override tables: merging one into another (tables recursively, so a later
//! source changes only the parameters it names) and setting a parameter by its dotted
//! path (`hwacha.lanes`), as `--set` and sweep axes do.

/// Merges `from` into `into`: tables recursively, any other value replaces.
pub fn merge(into: &mut toml::Table, from: toml::Table) {
    for (key, value) in from {
        match (into.get_mut(&key), value) {
            (Some(toml::Value::Table(old)), toml::Value::Table(new)) => merge(old, new),
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

/// `{a = {b = value}}` for dotted path `a.b`: a one-parameter override table.
pub fn dotted(path: &str, value: toml::Value) -> toml::Table {
    let mut table = toml::Table::new();
    match path.split_once('.') {
        Some((outer, rest)) => table.insert(outer.into(), toml::Value::Table(dotted(rest, value))),
        None => table.insert(path.into(), value),
    };
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dotted_override_merges_into_its_table_only() {
        let mut t: toml::Table = "a = 1\n[h]\nx = 1\ny = 2\n".parse().unwrap();
        merge(&mut t, dotted("h.y", 5.into()));
        merge(&mut t, dotted("a", 3.into()));
        assert_eq!(t, "a = 3\n[h]\nx = 1\ny = 5\n".parse().unwrap());
    }
}
