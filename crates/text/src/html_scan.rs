//! A cheap walk over stored HTML's text and tags, for reading its words
//! without a full parse (the merge's check of raw content, the search index).

/// The text of `html` with its tags removed: each run of text between tags
/// goes through `push_text`, and a tag whose lower-cased name `breaks_words`
/// leaves a space. An unclosed tag at the end is dropped with what follows.
pub fn strip_tags(
    html: &str,
    mut push_text: impl FnMut(&mut String, &str),
    breaks_words: impl Fn(&str) -> bool,
) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        push_text(&mut out, &rest[..open]);
        let Some(close) = rest[open..].find('>') else {
            return out;
        };
        let tag = &rest[open + 1..open + close];
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        if breaks_words(&name) {
            out.push(' ');
        }
        rest = &rest[open + close + 1..];
    }
    push_text(&mut out, rest);
    out
}

#[cfg(test)]
mod tests {
    use super::strip_tags;

    #[test]
    fn tags_go_and_chosen_ones_break_words() {
        let text = strip_tags(
            "<p>pre<b>fix</b></p><P>next <",
            |out, t| out.push_str(t),
            |name| name == "p",
        );
        assert_eq!(text, " prefix  next ");
    }
}
