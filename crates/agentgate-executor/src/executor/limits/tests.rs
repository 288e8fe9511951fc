use super::*;

#[test]
fn backoff_doubles_up_to_its_maximum_with_at_most_a_quarter_of_jitter() {
    let l = QueueSpec {
        backoff: Duration::from_secs(10),
        backoff_max: Duration::from_secs(60),
        ..QueueSpec::default()
    };
    assert_eq!(backoff(&l, 1, 0.0), Duration::from_secs(10));
    assert_eq!(backoff(&l, 2, 0.0), Duration::from_secs(20));
    assert_eq!(backoff(&l, 3, 0.0), Duration::from_secs(40));
    assert_eq!(backoff(&l, 4, 0.0), Duration::from_secs(60));
    assert_eq!(backoff(&l, 99, 0.0), Duration::from_secs(60));
    assert_eq!(backoff(&l, 1, 1.0), Duration::from_millis(12_500));
    for _ in 0..100 {
        let j = jitter();
        assert!((0.0..=1.0).contains(&j), "{j}");
    }
}
