//! `dlc_ir::work_queue`: every item mapped once, results in item order, items handed out
//! largest first.

use dlc_ir::work_queue::{map_in_order, map_largest_first};
use std::sync::Mutex;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

#[test]
fn results_come_back_in_item_order() {
    for threads in [1, 2, 5] {
        let items: Vec<u64> = (0..200).collect();
        let out = pool(threads).install(|| map_in_order(items.clone(), |x| x * x));
        assert_eq!(out, items.iter().map(|x| x * x).collect::<Vec<_>>());
        let sizes = pool(threads)
            .install(|| map_largest_first(items.clone(), |&x| ((x * 37) % 11) as usize, |x| x + 1));
        assert_eq!(sizes, items.iter().map(|x| x + 1).collect::<Vec<_>>());
    }
    assert!(pool(2)
        .install(|| map_in_order(Vec::<u8>::new(), |x| x))
        .is_empty());
}

#[test]
fn the_largest_items_go_out_first() {
    // On one worker the processing order is the hand-out order: by size, largest first, ties
    // in item order.
    let seen = Mutex::new(Vec::new());
    let sizes = [3usize, 9, 1, 9, 4];
    pool(1).install(|| {
        map_largest_first(
            (0..sizes.len()).collect(),
            |&i| sizes[i],
            |i| seen.lock().expect("not poisoned").push(i),
        )
    });
    assert_eq!(seen.into_inner().expect("not poisoned"), [1, 3, 4, 0, 2]);
}
