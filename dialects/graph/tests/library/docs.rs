//! The dialect's documentation and decomposition table cover every op the dialect defines.

use dlc_graph::decompose::is_composite;

#[test]
fn every_op_is_documented() {
    let doc = include_str!("../../../../docs/dialects/graph.md");
    let missing: Vec<&str> = dlc_graph::dialect()
        .ops
        .iter()
        .map(|def| def.name)
        .filter(|name| !doc.contains(&format!("`{name}")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/dialects/graph.md does not describe {missing:?}"
    );
}

#[test]
fn every_composite_has_a_decomposition() {
    for def in dlc_graph::dialect().ops {
        let composite = dlc_graph::family(def.name).is_some_and(|f| f.is_composite());
        assert_eq!(composite, is_composite(def.name), "{}", def.name);
    }
}
