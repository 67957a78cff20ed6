//! Pattern sets (`dlc_ir::rewrite::PatternSet`): the patterns for an op name merge those rooted
//! on it with those for any op, by decreasing benefit, in insertion order among equals.

use dlc_ir::rewrite::{PatternSet, RewritePattern, Rewriter};
use dlc_ir::Op;

struct Named(&'static str, Option<&'static str>, u16);

impl RewritePattern for Named {
    fn name(&self) -> &str {
        self.0
    }
    fn root(&self) -> Option<&'static str> {
        self.1
    }
    fn benefit(&self) -> u16 {
        self.2
    }
    fn match_and_rewrite(&self, _: Op, _: &mut Rewriter<'_>) -> bool {
        false
    }
}

fn names<'a>(it: impl Iterator<Item = &'a dyn RewritePattern>) -> Vec<&'a str> {
    it.map(|p| p.name()).collect()
}

#[test]
fn lists_merge_any_op_patterns_by_benefit() {
    let mut set = PatternSet::new();
    set.add(Named("a1", Some("t.a"), 1));
    set.add(Named("any2", None, 2));
    set.add(Named("a3", Some("t.a"), 3));
    set.add(Named("b1", Some("t.b"), 1));
    set.add(Named("a1bis", Some("t.a"), 1));
    set.add(Named("any1", None, 1));
    assert_eq!(
        names(set.for_op_name("t.a")),
        ["a3", "any2", "a1", "a1bis", "any1"]
    );
    assert_eq!(names(set.for_op_name("t.b")), ["any2", "b1", "any1"]);
    assert_eq!(names(set.for_op_name("t.c")), ["any2", "any1"]);
    set.retain(|p| !p.name().starts_with("any"));
    assert_eq!(names(set.for_op_name("t.a")), ["a3", "a1", "a1bis"]);
    assert!(set.for_op_name("t.c").next().is_none());
    assert_eq!(set.len(), 4);
}
