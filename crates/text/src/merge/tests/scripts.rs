//! The merge's cases in scripts written without spaces between words: Japanese, Chinese and Thai.

use super::*;

#[test]
fn two_edits_in_one_sentence_without_spaces_merge_in_japanese_chinese_and_thai() {
    for (base, mine, theirs, both) in [
        (
            "東京都の予算は来年度に増える。",
            "大阪府の予算は来年度に増える。",
            "東京都の予算は再来年度に増える。",
            "大阪府の予算は再来年度に増える。",
        ),
        (
            "市议会周二投票提高费用",
            "市议会周三投票提高费用",
            "市议会周二投票降低费用",
            "市议会周三投票降低费用",
        ),
        (
            "สภาเมืองลงมติขึ้นค่าธรรมเนียมวันอังคาร",
            "สภาจังหวัดลงมติขึ้นค่าธรรมเนียมวันอังคาร",
            "สภาเมืองลงมติขึ้นค่าธรรมเนียมวันพุธ",
            "สภาจังหวัดลงมติขึ้นค่าธรรมเนียมวันพุธ",
        ),
    ] {
        let merged = merge(&doc(&[base]), &doc(&[mine]), &doc(&[theirs]));
        assert!(
            merged.conflicts.is_empty(),
            "{base}: {:?}",
            merged.conflicts
        );
        assert_eq!(texts(&merged.text), [both]);
    }
}

#[test]
fn the_same_word_changed_differently_in_japanese_is_still_a_conflict() {
    let merged = merge(
        &doc(&["東京都の予算は来年度に増える。"]),
        &doc(&["大阪府の予算は来年度に増える。"]),
        &doc(&["京都府の予算は来年度に増える。"]),
    );
    assert_eq!(merged.conflicts.len(), 1);
}
