//! A write begun to make one story alone (`Store::write_making_story`) on
//! PostgreSQL: the queues' triggers leave that story be, the write fails
//! unless it declares exactly one story, and the setting that tells the
//! triggers so ends with its transaction.

use copydesk_store::Store;
use copydesk_store::db::{OptionalExtension as _, Transaction, params};
use copydesk_store::{Result, StoreError};
use copydesk_tests::postgres::fresh_database;

/// Stores a bare story as the create does (its row, its first version and
/// its audit row, each with a queue trigger of its own) and gives its id.
fn insert_story(tx: &Transaction<'_>, uuid: &str) -> Result<i64> {
    let id: i64 = tx
        .prepare_cached(
            "INSERT INTO content (uuid, title, slug, type, version, abstract, content, created_at, modified_at)
             VALUES (?1, 'Council votes', 'council-votes', 'article', 1, '', '<p>Budget.</p>',
                     '2026-12-02 10:00:00', '2026-12-02 10:00:00')
             RETURNING id",
        )?
        .query_row(params![uuid], |row| row.get(0))?;
    tx.prepare_cached(
        "INSERT INTO versions (uuid, content_id, version, title, slug, type, weight, abstract,
                               abstract_raw, content, content_raw, state, workflow_id, created_at, modified_at)
         VALUES (?1 || '-v1', ?2, 1, 'Council votes', 'council-votes', 'article', 0, '', '',
                 '<p>Budget.</p>', '', 0, 0, '2026-12-02 10:00:00', '2026-12-02 10:00:00')",
    )?
    .execute(params![uuid, id])?;
    tx.prepare_cached(
        "INSERT INTO audit (uuid, content_id, action, created_at)
         VALUES (?1 || '-created', ?2, 'created', '2026-12-02 10:00:00')",
    )?
    .execute(params![uuid, id])?;
    Ok(id)
}

/// The message of a write made alone that failed, which must be the rule it broke.
fn refusal(result: Result<()>) -> String {
    result.expect_err("the write fails").to_string()
}

fn declare(tx: &Transaction<'_>, id: i64) {
    tx.declare_made_alone(id, ["Council votes", "", "<p>Budget.</p>", "council-votes"]);
}

/// How many rows of `table` name the story `uuid`'s id, and whether it is stored.
fn rows_of(store: &Store, table: &str, uuid: &str) -> (i64, bool) {
    store
        .read(|tx| {
            let sql = format!(
                "SELECT (SELECT count(*) FROM {table} WHERE content_id = c.id) FROM content c WHERE c.uuid = ?1"
            );
            let found: Option<i64> = tx
                .prepare(&sql)?
                .query_row(params![uuid], |row| row.get(0))
                .optional()?;
            Ok::<_, StoreError>((found.unwrap_or(0), found.is_some()))
        })
        .expect("a read")
}

#[test]
fn a_story_made_alone_skips_the_queues_and_a_write_that_makes_none_or_two_is_refused() {
    let dir = tempfile::tempdir().expect("a directory");
    // One connection, so that every write below runs on the one that ran
    // the writes made alone before it.
    let store = Store::open_postgres(&fresh_database(), dir.path(), 1).expect("the store opens");

    store
        .write_making_story(true, |tx| {
            let id = insert_story(tx, "made-alone")?;
            declare(tx, id);
            Ok::<_, StoreError>(())
        })
        .expect("a story made alone is stored");
    assert_eq!(
        rows_of(&store, "content_render_pending", "made-alone"),
        (0, true),
        "the triggers did not queue a story made alone to be rendered"
    );
    assert_eq!(
        rows_of(&store, "content_search", "made-alone"),
        (1, true),
        "a story made alone is indexed from its text, in its own transaction"
    );

    let none = store.write_making_story(true, |tx| insert_story(tx, "not-declared").map(|_| ()));
    assert!(
        refusal(none).contains("did not make exactly one"),
        "a write that declared no story fails"
    );
    assert_eq!(
        rows_of(&store, "content_render_pending", "not-declared"),
        (0, false)
    );

    let two = store.write_making_story(true, |tx| {
        for uuid in ["first-of-two", "second-of-two"] {
            let id = insert_story(tx, uuid)?;
            declare(tx, id);
        }
        Ok::<_, StoreError>(())
    });
    assert!(
        refusal(two).contains("did not make exactly one"),
        "a write that declared two stories fails"
    );
    assert!(
        !rows_of(&store, "content_render_pending", "first-of-two").1,
        "nothing of it is stored"
    );

    store
        .write_beside(&[], |tx| insert_story(tx, "queued").map(|_| ()))
        .expect("a write not made alone");
    assert_eq!(
        rows_of(&store, "content_render_pending", "queued"),
        (1, true),
        "the setting ended with the transactions made alone: this story is queued"
    );
    store
        .write_making_story(false, |tx| {
            let id = insert_story(tx, "declared-but-queued")?;
            declare(tx, id);
            Ok::<_, StoreError>(())
        })
        .expect("a declaration in a write not begun alone is not needed");
    assert_eq!(
        rows_of(&store, "content_render_pending", "declared-but-queued"),
        (1, true),
        "a write not begun alone is queued, declared or not"
    );
}
