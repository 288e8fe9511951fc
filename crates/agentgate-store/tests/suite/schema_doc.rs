//! The schema in README.md is the schema a new store gets.

use rusqlite::Connection;

type Shape = Vec<(String, String, Vec<String>)>;

/// Every table and index with its columns, as SQLite reports them.
fn shape(conn: &Connection) -> Shape {
    let mut stmt = conn
        .prepare(
            "SELECT type, name FROM sqlite_master \
             WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
        )
        .unwrap();
    let objects: Vec<(String, String)> = stmt
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    objects
        .into_iter()
        .map(|(kind, name)| {
            let pragma = if kind == "index" {
                "index_xinfo"
            } else {
                "table_xinfo"
            };
            let mut stmt = conn
                .prepare(&format!("SELECT * FROM pragma_{pragma}(?1)"))
                .unwrap();
            let width = stmt.column_count();
            let columns = stmt
                .query_map([&name], |row| {
                    (0..width)
                        .map(|i| {
                            row.get::<_, rusqlite::types::Value>(i)
                                .map(|v| format!("{v:?}"))
                        })
                        .collect::<Result<Vec<_>, _>>()
                        .map(|fields| fields.join("|"))
                })
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            (kind, name, columns)
        })
        .collect()
}

#[test]
fn the_readme_schema_matches_a_new_store() {
    let readme = include_str!("../../README.md");
    let start = readme.find("```sql\n").unwrap() + "```sql\n".len();
    let end = start + readme[start..].find("```").unwrap();
    let documented = Connection::open_in_memory().unwrap();
    documented.execute_batch(&readme[start..end]).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    drop(agentgate_store::Store::open(&path).unwrap());
    let actual = Connection::open(&path).unwrap();

    let documented = shape(&documented);
    assert!(documented.len() >= 5, "{documented:?}");
    assert_eq!(documented, shape(&actual));
}
