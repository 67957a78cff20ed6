//! Pipeline text (`dlc_ir::pass::parse_pipeline`): the flat and nested forms, the columns of
//! syntax errors, and option values that are pipelines themselves.

use dlc_ir::pass::{parse_pipeline, PipelineElement};

fn pass(name: &str, options: &[(&str, &str)]) -> PipelineElement {
    PipelineElement::Pass {
        name: name.into(),
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        col: 0,
        option_cols: Vec::new(),
    }
}

fn strip_cols(e: &mut [PipelineElement]) {
    for e in e {
        match e {
            PipelineElement::Pass {
                col, option_cols, ..
            } => {
                *col = 0;
                option_cols.clear();
            }
            PipelineElement::Nested { spec, col } => {
                *col = 0;
                strip_cols(&mut spec.elements);
            }
        }
    }
}

#[test]
fn parses_flat_and_nested_forms() {
    let mut flat =
        parse_pipeline("cse, canonicalize{max-iterations=4 top-down=false}").expect("valid");
    strip_cols(&mut flat.elements);
    assert_eq!(flat.anchor, None);
    assert_eq!(
        flat.elements,
        vec![
            pass("cse", &[]),
            pass(
                "canonicalize",
                &[("max-iterations", "4"), ("top-down", "false")]
            )
        ]
    );

    let mut nested =
        parse_pipeline("builtin.module(func.func(cse,dce{x}),symbol-dce)").expect("valid");
    strip_cols(&mut nested.elements);
    assert_eq!(nested.anchor.as_deref(), Some("builtin.module"));
    let PipelineElement::Nested { spec, .. } = &nested.elements[0] else {
        panic!("nested")
    };
    assert_eq!(spec.anchor.as_deref(), Some("func.func"));
    assert_eq!(
        spec.elements,
        vec![pass("cse", &[]), pass("dce", &[("x", "")])]
    );
}

#[test]
fn reports_columns() {
    assert_eq!(parse_pipeline("a(b").unwrap_err().col, 3);
    assert_eq!(parse_pipeline("a,b)").unwrap_err().col, 3);
    assert_eq!(parse_pipeline("a{x=1").unwrap_err().col, 1);
    assert_eq!(parse_pipeline("a,,b").unwrap_err().col, 2);
    assert_eq!(
        parse_pipeline("a{l={1,2}}").map(|s| s.elements.len()),
        Ok(1)
    );
    assert_eq!(parse_pipeline("a{p=b(c").unwrap_err().col, 5);
    assert_eq!(parse_pipeline("a{p=b(c}").unwrap_err().col, 7);
}

#[test]
fn option_values_hold_pipelines() {
    let mut spec =
        parse_pipeline("inline{default-pipeline=func.func(cse, dce{x=1}),c x=2}").expect("valid");
    strip_cols(&mut spec.elements);
    assert_eq!(
        spec.elements,
        vec![pass(
            "inline",
            &[
                ("default-pipeline", "func.func(cse, dce{x=1}),c"),
                ("x", "2")
            ]
        )]
    );
}
