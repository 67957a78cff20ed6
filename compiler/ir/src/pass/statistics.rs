//! The statistics report in its second layout: every pass once, counts of the same pass added up
//! (mlir-opt's `--mlir-pass-statistics-display=list`).

use super::manager::{Element, OpPassManager, PassManager};
use std::sync::atomic::Ordering;

/// How `--pass-statistics` lays out its report.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum StatisticsDisplay {
    /// Each pass once, sorted by argument, with the counts of all its instances added up.
    List,
    /// Passes nested as in the pipeline, each instance on its own.
    #[default]
    Pipeline,
}

/// A pass argument and its statistics: (name, description, count).
type PassStats = (&'static str, Vec<(&'static str, &'static str, u64)>);

impl PassManager {
    /// The statistics report in `display`'s layout.
    pub fn statistics_report_as(&self, display: StatisticsDisplay) -> String {
        if display == StatisticsDisplay::Pipeline {
            return self.statistics_report();
        }
        let mut merged: Vec<PassStats> = Vec::new();
        collect(&self.root, &mut merged);
        merged.sort_by_key(|(argument, _)| *argument);
        let rule =
            "===-------------------------------------------------------------------------===";
        let mut out =
            format!("{rule}\n                         ... Pass statistics report ...\n{rule}\n");
        for (argument, stats) in merged {
            out.push_str(&format!("{argument}\n"));
            for (name, desc, n) in stats {
                out.push_str(&format!("  (S) {n} {name} - {desc}\n"));
            }
        }
        out
    }
}

fn collect(pm: &OpPassManager, out: &mut Vec<PassStats>) {
    for e in &pm.elements {
        match e {
            Element::Pass(p) => {
                let counts = p.info.statistics.iter().zip(&p.statistics);
                match out.iter_mut().find(|(a, _)| *a == p.info.argument) {
                    Some((_, stats)) => {
                        for (slot, (_, n)) in stats.iter_mut().zip(counts) {
                            slot.2 += n.load(Ordering::Relaxed);
                        }
                    }
                    None => out.push((
                        p.info.argument,
                        counts
                            .map(|((name, desc), n)| (*name, *desc, n.load(Ordering::Relaxed)))
                            .collect(),
                    )),
                }
            }
            Element::Nested(n) => collect(n, out),
        }
    }
}
