//! The public helpers of `dlc-passes` that tools build on, checked through their API: the
//! conversions `levels` inserts into a pipeline between the graph and loop levels, and the
//! register files and tiles `CpuInfo` gives each x86-64 level.

use dlc_ir::pass::{parse_pipeline, PipelineElement};
use dlc_passes::levels::{with_conversions, Inserted};
use dlc_passes::loops::cpu::target::{ByteDot, CpuInfo, Vendor, PAIR_VECTORS};

fn converted(text: &str) -> (Vec<String>, Vec<Inserted>) {
    let spec = parse_pipeline(text).expect("parses");
    let (spec, inserted) = with_conversions(&spec);
    let names = spec
        .elements
        .iter()
        .map(|e| match e {
            PipelineElement::Pass { name, options, .. } => match options.first() {
                Some((k, v)) => format!("{name}{{{k}={v}}}"),
                None => name.clone(),
            },
            PipelineElement::Nested { .. } => "(nested)".to_string(),
        })
        .collect();
    (names, inserted)
}

#[test]
fn the_headline_pipeline_gains_decompose_and_a_gpu_lower() {
    let (names, inserted) = converted("fuse,simplify,gpu-map");
    assert_eq!(
        names,
        [
            "decompose",
            "fuse",
            "lower{target=gpu}",
            "simplify",
            "gpu-map"
        ]
    );
    assert_eq!(inserted.len(), 2);
    assert_eq!(inserted[1].before, "simplify");
}

#[test]
fn cpu_pipelines_lower_for_the_cpu() {
    let (names, _) = converted("fuse,cse,cpu-default");
    assert_eq!(
        names,
        [
            "decompose",
            "fuse",
            "cse",
            "lower{target=cpu}",
            "cpu-default"
        ]
    );
}

#[test]
fn explicit_passes_win() {
    for text in [
        "decompose,fuse,lower,simplify",
        "decompose,fuse,lower{target=gpu},gpu-default",
        "simplify,gpu-map",
        "canonicalize,cse",
        "builtin.module(fuse,simplify)",
    ] {
        let (_, inserted) = converted(text);
        assert!(inserted.is_empty(), "{text}: {inserted:?}");
    }
}

#[test]
fn fuse_after_an_explicit_decompose_gains_only_lower() {
    let (names, _) = converted("decompose,canonicalize,fuse,simplify");
    assert_eq!(
        names,
        [
            "decompose",
            "canonicalize",
            "fuse",
            "lower{target=cpu}",
            "simplify"
        ]
    );
}

#[test]
fn levels_have_the_psabi_register_files() {
    let v3 = CpuInfo::named("x86-64-v3").unwrap();
    assert_eq!(
        (v3.vector_bits, v3.vector_registers, v3.fma),
        (256, 16, true)
    );
    assert_eq!(v3.lanes(32), 8);
    assert_eq!(v3.lanes(64), 4);
    // A level names no core: it gets the tile every maker's cores run well.
    assert_eq!((v3.vendor, v3.register_tile()), (Vendor::Any, (6, 2)));
    let v4 = CpuInfo::named("x86-64-v4").unwrap();
    assert_eq!((v4.lanes(32), v4.register_tile()), (16, (4, 4)));
    assert!(!CpuInfo::named("x86-64").unwrap().fma);
    assert!(CpuInfo::named("znver1").is_err());
}

#[test]
fn byte_products_take_pairs_on_every_level_and_the_option_overrides_them() {
    // No x86-64 level has VNNI; every one has `pmaddwd` (SSE2 on).
    for name in ["x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"] {
        let cpu = CpuInfo::named(name).unwrap();
        assert_eq!((cpu.dot, cpu.dot.group()), (ByteDot::Two, 2), "{name}");
    }
    assert_eq!((ByteDot::Four.group(), ByteDot::Widen.group()), (4, 1));
    assert_eq!(CpuInfo::dot_option(""), Ok(None));
    assert_eq!(CpuInfo::dot_option("4"), Ok(Some(ByteDot::Four)));
    assert_eq!(CpuInfo::dot_option("2"), Ok(Some(ByteDot::Two)));
    assert_eq!(CpuInfo::dot_option("none"), Ok(Some(ByteDot::Widen)));
    let err = CpuInfo::dot_option("true").unwrap_err();
    assert!(err.contains("dot must be 4, 2, none or empty"), "{err}");
}

#[test]
fn quads_take_one_signed_operand_on_sixteen_lanes_and_pairs_the_rest() {
    let four = ByteDot::Four;
    assert_eq!(four.for_product(false, true, 16), ByteDot::Four);
    assert_eq!(four.for_product(true, false, 16), ByteDot::Four);
    // Both signed, both unsigned, or 8 lanes: `vpdpbusd` cannot, `pmaddwd` can.
    assert_eq!(four.for_product(true, true, 16), ByteDot::Two);
    assert_eq!(four.for_product(false, false, 16), ByteDot::Two);
    assert_eq!(four.for_product(false, true, 8), ByteDot::Two);
    assert_eq!(ByteDot::Two.for_product(false, true, 16), ByteDot::Two);
    assert_eq!(ByteDot::Widen.for_product(false, true, 16), ByteDot::Widen);
}

#[test]
fn a_register_tile_fits_the_register_file() {
    let levels = ["x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4", "host"];
    let amd = |name| CpuInfo {
        vendor: Vendor::Amd,
        ..CpuInfo::named(name).unwrap()
    };
    let cpus = levels
        .iter()
        .map(|&name| (name, CpuInfo::named(name).unwrap()))
        .chain([("amd-v3", amd("x86-64-v3")), ("amd-v4", amd("x86-64-v4"))]);
    for (name, cpu) in cpus {
        let (rows, vectors) = cpu.register_tile();
        // Accumulators, registers of `B`, one broadcast of `A`.
        let used = rows * vectors + vectors + 1;
        assert!(used <= i64::from(cpu.vector_registers), "{name}");
        // A pair tile also holds `pmaddwd`'s product before the add, and amortizes each
        // row's pair over at least `PAIR_VECTORS` vectors.
        let (rows, vectors) = cpu.pair_tile();
        assert!(vectors >= PAIR_VECTORS && rows >= 1, "{name}");
        assert!(
            rows * vectors + vectors + 2 <= i64::from(cpu.vector_registers),
            "{name}"
        );
    }
    // Fewer rows than floats with 16 registers; AVX-512's 4x4 already has four vectors a row.
    assert_eq!(CpuInfo::named("x86-64-v3").unwrap().pair_tile(), (2, 4));
    // AMD's cores read at most 4 rows of `A` a step with 16 registers; 32 keep 4x4.
    assert_eq!(amd("x86-64-v3").register_tile(), (4, 3));
    assert_eq!(amd("x86-64-v3").pair_tile(), (2, 4));
    assert_eq!(amd("x86-64-v4").register_tile(), (4, 4));
    assert_eq!(CpuInfo::named("x86-64-v4").unwrap().pair_tile(), (4, 4));
}
