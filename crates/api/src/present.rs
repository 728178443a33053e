//! Turns the service's records into the wire shapes (ids and numbers as strings).

use copydesk_core::assignments::Assignment;
use copydesk_core::attachments::Attachment;
use copydesk_core::authors::Author;
use copydesk_core::comments::{AssignmentComment, NoteComment};
use copydesk_core::containers::{ContainedContent, Container};
use copydesk_core::content::{AuditEntry, ContentItem, ContentUrl, VersionSummary};
use copydesk_core::content_rendered::RenderedContent;
use copydesk_core::drafts::Draft;
use copydesk_core::exports::Export;
use copydesk_core::locks::LockRequest;
use copydesk_core::paging::Page;
use copydesk_core::planning::{Issue, Workflow, WorkflowSection};
use copydesk_core::print_documents::{PrintAuditEntry, PrintDocument};
use copydesk_core::search::SearchHit;
use copydesk_core::tags::Tag;
use copydesk_core::users::User;
use copydesk_core::versions::Version;
use copydesk_wire as wire;

fn id(value: i64) -> String {
    value.to_string()
}

fn opt_id(value: Option<i64>) -> Option<String> {
    value.map(id)
}

pub fn page<T, W>(page: Page<T>, item: impl FnMut(T) -> W) -> wire::Envelope<W> {
    let page = page.map(item);
    wire::Envelope {
        items: page.items,
        first: page.first,
        before: page.before,
        current: page.current,
        last: page.last,
        next: page.next,
        total_pages: page.total_pages,
        total_items: page.total_items,
        limit: page.limit,
        total_items_estimated: page.total_estimated,
    }
}

/// A page of answers already written as JSON text (content items as the
/// core kept them), in the envelope every list has: the envelope is
/// serialised without items and the items' text is put in its empty
/// `items` array.
pub fn rendered_page(mut page: Page<RenderedContent>) -> String {
    let items: Vec<String> = std::mem::take(&mut page.items)
        .into_iter()
        .map(|item| item.0)
        .collect();
    let empty = page.with_items(Vec::<()>::new());
    let envelope = serde_json::to_string(&self::page(empty, |()| ()))
        .unwrap_or_else(|_| String::from("{\"items\":[]}"));
    let rest = envelope.strip_prefix("{\"items\":[]").unwrap_or("}");
    let size: usize = items.iter().map(|item| item.len() + 1).sum();
    let mut out = String::with_capacity(size + envelope.len() + 16);
    out.push_str("{\"items\":[");
    out.push_str(&items.join(","));
    out.push(']');
    out.push_str(rest);
    out
}

pub fn user(user: User) -> wire::User {
    wire::User {
        id: id(user.id),
        uuid: user.uuid,
        name: user.name,
        slug: user.slug,
        email: user.email,
        is_vendor: if user.is_vendor { "1" } else { "0" }.to_owned(),
        srn: user.srn,
        avatar: None,
    }
}

pub fn author(author: Author) -> wire::Author {
    wire::Author {
        id: id(author.id),
        uuid: author.uuid,
        slug: author.slug,
        name: author.name,
        email: author.email,
        tagline: author.tagline,
        description: author.description,
        status: author.status.to_string(),
        created_at: author.created_at,
        modified_at: author.modified_at,
        srn: author.srn,
    }
}

pub fn tag(tag: Tag) -> wire::Tag {
    wire::Tag {
        id: id(tag.id),
        uuid: tag.uuid,
        name: tag.name,
        slug: tag.slug,
        created_at: tag.created_at,
        modified_at: tag.modified_at,
        srn: tag.srn,
    }
}

fn url(url: ContentUrl) -> wire::Url {
    wire::Url {
        id: id(url.id),
        uuid: url.uuid,
        url: url.path,
        content_id: id(url.content_id),
        created_at: url.created_at,
    }
}

fn version_summary(version: VersionSummary) -> wire::VersionSummary {
    wire::VersionSummary {
        id: id(version.id),
        uuid: version.uuid,
        version: version.version.to_string(),
        user_id: opt_id(version.user_id),
        created_at: version.created_at,
        srn: version.srn,
    }
}

fn audit_entry(entry: AuditEntry) -> wire::AuditEntry {
    wire::AuditEntry {
        id: id(entry.id),
        uuid: entry.uuid,
        action: entry.action,
        detail: entry.detail,
        user_id: opt_id(entry.user_id),
        user_name: entry.user_name,
        created_at: entry.created_at,
    }
}

pub fn attachment(attachment: Attachment) -> wire::Attachment {
    wire::Attachment {
        id: id(attachment.id),
        uuid: attachment.uuid,
        base_name: attachment.base_name,
        salt: Some(attachment.salt),
        extension: attachment.extension,
        parent_id: None,
        content_id: id(attachment.content_id),
        height: attachment.height.to_string(),
        width: attachment.width.to_string(),
        size_name: "original".to_owned(),
        kind: attachment.kind,
        preview_extension: attachment.preview_extension,
        container_id: None,
        angle: attachment.angle.to_string(),
        size: attachment.size_bytes.to_string(),
        sha256: attachment.sha256,
        metadata: attachment.metadata,
        srn: attachment.srn,
        public_url: attachment.public_url,
        original_url: attachment.original_url,
    }
}

pub fn content(item: ContentItem) -> wire::Content {
    let record = item.record;
    let urls: Vec<wire::Url> = item.urls.into_iter().map(url).collect();
    wire::Content {
        id: id(record.id),
        uuid: record.uuid,
        title: record.title,
        title_url: record.slug.clone(),
        slug: record.slug,
        content_type: record.content_type,
        version: record.version.to_string(),
        weight: record.weight.to_string(),
        abstract_text: record.abstract_text,
        abstract_raw: record.abstract_raw,
        content: record.body,
        content_raw: record.body_raw,
        created_at: record.created_at,
        modified_at: record.modified_at,
        published_at: record.published_at,
        state: record.state.to_string(),
        url_id: urls.first().map(|u| u.id.clone()),
        user_id: opt_id(record.user_id),
        assignment_id: opt_id(record.assignment_id),
        workflow_id: record.workflow_id.to_string(),
        dominant_attachment_id: opt_id(record.dominant_attachment_id),
        has_attachment: if record.has_attachment { "1" } else { "0" }.to_owned(),
        container_id: opt_id(record.container_id),
        srn: record.srn,
        ssts_path: record.ssts_path,
        export: item
            .export
            .map(export)
            .and_then(|e| serde_json::to_value(e).ok())
            .unwrap_or_else(|| serde_json::Value::Object(serde_json::Map::new())),
        authors: item.authors.into_iter().map(author).collect(),
        tags: item.tags.into_iter().map(tag).collect(),
        urls,
        lock: item.lock,
        lock_request: item.lock_request.map(lock_request),
        versions: item.versions.into_iter().map(version_summary).collect(),
        audit: item.audit.into_iter().map(audit_entry).collect(),
        attachment: item.attachment.map(attachment),
        dominant_attachment: item.lead_photo.map(|photo| wire::LeadPhoto {
            uuid: photo.uuid,
            srn: photo.srn,
            title: photo.title,
            content: photo.caption,
            authors: photo.authors.into_iter().map(author).collect(),
            attachment: attachment(photo.attachment),
        }),
    }
}

pub fn version(version: Version) -> wire::Version {
    wire::Version {
        id: id(version.id),
        uuid: version.uuid,
        title_url: version.slug.clone(),
        slug: version.slug,
        content_type: version.content_type,
        version: version.version.to_string(),
        weight: version.weight.to_string(),
        abstract_text: version.abstract_text,
        abstract_raw: version.abstract_raw,
        content: version.body,
        content_raw: version.body_raw,
        created_at: version.created_at,
        modified_at: version.modified_at,
        published_at: version.published_at,
        state: version.state.to_string(),
        url_id: opt_id(version.url_id),
        content_id: id(version.content_id),
        user_id: opt_id(version.user_id),
        workflow_id: version.workflow_id.to_string(),
        title: version.title,
        dominant_attachment_id: opt_id(version.dominant_attachment_id),
        srn: version.srn,
        user: version.user.map(user),
        authors: version.authors.into_iter().map(author).collect(),
        tags: version.tags.into_iter().map(tag).collect(),
    }
}

pub fn draft(draft: Draft) -> wire::Draft {
    wire::Draft {
        id: id(draft.id),
        uuid: draft.uuid,
        content: draft.body,
        content_raw: draft.body_raw,
        version: draft.version.to_string(),
        created_at: draft.created_at,
        user_id: opt_id(draft.user_id),
        fields: draft.fields.map(draft_fields),
        saved: draft.saved,
        user: draft.user.map(user),
    }
}

fn draft_fields(fields: copydesk_core::drafts::DraftFields) -> wire::DraftFields {
    wire::DraftFields {
        title: fields.title,
        slug: fields.slug,
        abstract_text: fields.abstract_text,
        authors: fields.authors,
        tags: fields.tags,
        urls: fields.urls,
        dominant_attachment: fields.dominant_attachment,
        published: fields.published,
    }
}

/// The draft fields a client sent, as core keeps them.
pub fn draft_fields_sent(fields: wire::DraftFields) -> copydesk_core::drafts::DraftFields {
    copydesk_core::drafts::DraftFields {
        title: fields.title,
        slug: fields.slug,
        abstract_text: fields.abstract_text,
        authors: fields.authors,
        tags: fields.tags,
        urls: fields.urls,
        dominant_attachment: fields.dominant_attachment,
        published: fields.published,
    }
}

pub fn merged_draft(merged: copydesk_core::drafts::MergedDraft) -> wire::MergedDraft {
    let (text, other): (Vec<_>, Vec<_>) = merged
        .conflicts
        .into_iter()
        .partition(|c| c.field == "content" && c.block.is_some());
    wire::MergedDraft {
        draft: draft(merged.draft),
        version: merged.version.to_string(),
        content: merged.body,
        content_raw: merged.body_raw,
        fields: merged.fields.map(draft_fields),
        conflicts: text
            .into_iter()
            .filter_map(|c| {
                let place = c.block?;
                Some(wire::TextConflict {
                    position: place.position.to_string(),
                    mine: c.mine,
                    theirs: c.theirs,
                    before: place.before,
                    after: place.after,
                })
            })
            .collect(),
        field_conflicts: other
            .into_iter()
            .map(|c| wire::FieldConflict {
                field: match c.field.as_str() {
                    "dominant_attachment" => "dominantAttachment".to_owned(),
                    _ => c.field,
                },
                mine: c.mine,
                theirs: c.theirs,
            })
            .collect(),
    }
}

fn contained(container_id: i64, contained: ContainedContent) -> wire::ContainedContent {
    let record = contained.record;
    wire::ContainedContent {
        id: id(record.id),
        uuid: record.uuid,
        title: record.title,
        slug: record.slug,
        content_type: record.content_type,
        version: record.version.to_string(),
        published_at: record.published_at,
        modified_at: record.modified_at,
        srn: record.srn,
        attachment: contained.attachment.map(attachment),
        urls: contained.urls.into_iter().map(url).collect(),
        lock: contained.lock,
        container_id: id(container_id),
        assignment_id: opt_id(record.assignment_id),
    }
}

pub fn container(container: Container) -> wire::Container {
    let container_id = container.id;
    let placeholder = container
        .content
        .iter()
        .find(|c| Some(c.record.id) == container.placeholder_id)
        .map(|c| c.record.uuid.clone());
    wire::Container {
        placeholder,
        id: id(container.id),
        uuid: container.uuid,
        title: container.title,
        slug: container.slug,
        description: container.description,
        container_type: container.container_type,
        created_at: container.created_at,
        modified_at: container.modified_at,
        sort_order: container.sort_order,
        published_at: container.published_at,
        srn: container.srn,
        lock: container.lock,
        content: container
            .content
            .into_iter()
            .map(|c| contained(container_id, c))
            .collect(),
        tags: container.tags.into_iter().map(tag).collect(),
    }
}

/// A search result as JSON text: a content item as kept, the others serialised.
pub fn search_hit(hit: SearchHit) -> RenderedContent {
    let text = match hit {
        SearchHit::Content(item) => return item,
        SearchHit::Author(a) => serde_json::to_string(&author(a)),
        SearchHit::Tag(t) => serde_json::to_string(&tag(t)),
    };
    RenderedContent(text.unwrap_or_else(|err| format!("{{\"error\":\"{err}\"}}")))
}

pub fn lock_request(lock: LockRequest) -> wire::LockRequest {
    wire::LockRequest {
        id: id(lock.id),
        uuid: lock.uuid,
        srn: lock.srn,
        user_id: id(lock.user_id),
        state: lock.state,
        created_at: lock.created_at,
        modified_at: lock.modified_at,
        user: lock.user.map(user),
    }
}

/// A user as comments embed them: with `avatar`.
fn commenter(found: Option<User>) -> Option<wire::User> {
    found.map(|u| {
        let avatar = u.avatar.clone();
        wire::User {
            avatar: Some(avatar),
            ..user(u)
        }
    })
}

/// Someone in a story, as presence lists and events give it.
pub fn presence(present: copydesk_core::presence::Present, here: bool) -> wire::Presence {
    wire::Presence {
        content: present.content,
        user_uuid: present.user_uuid,
        name: present.name,
        block: present.block,
        editing: present.editing,
        since: present.since,
        here,
    }
}

pub fn story_note(note: copydesk_core::text_notes::StoryNote) -> wire::StoryNote {
    wire::StoryNote {
        uuid: note.uuid,
        words: note.words,
        state: note.state.as_str().to_owned(),
        version: note.version.to_string(),
    }
}

pub fn note_comment(note: NoteComment) -> wire::NoteComment {
    wire::NoteComment {
        id: id(note.id),
        uuid: note.uuid,
        reference: note.reference,
        user_id: opt_id(note.user_id),
        comment: note.comment,
        created_at: note.created_at,
        version: note.version.to_string(),
        draft_uuid: note.draft_uuid,
        parent_id: id(note.parent_id),
        user: commenter(note.user),
    }
}

pub fn assignment_comment(comment: AssignmentComment) -> wire::AssignmentComment {
    wire::AssignmentComment {
        id: id(comment.id),
        uuid: comment.uuid,
        user_id: opt_id(comment.user_id),
        assignment_id: id(comment.assignment_id),
        comment: comment.comment,
        created_at: comment.created_at,
        user: commenter(comment.user),
    }
}

pub fn assignment(assignment: Assignment) -> wire::Assignment {
    wire::Assignment {
        id: id(assignment.id),
        uuid: assignment.uuid,
        title: assignment.title,
        description: assignment.description,
        due_at: assignment.due_at,
        assignee_id: opt_id(assignment.assignee_id),
        content_id: opt_id(assignment.content_id),
        content_uuid: assignment.content_uuid,
        user_id: opt_id(assignment.user_id),
        created_at: assignment.created_at,
        modified_at: assignment.modified_at,
        srn: assignment.srn,
        assignee: assignment.assignee.map(user),
    }
}

fn flag(value: bool) -> String {
    if value { "1" } else { "0" }.to_owned()
}

pub fn issue(issue: Issue) -> wire::Issue {
    wire::Issue {
        id: id(issue.id),
        uuid: issue.uuid,
        label: issue.label,
        description: issue.description,
        status: issue.status.to_string(),
        created_at: issue.created_at,
        modified_at: issue.modified_at,
        published_at: issue.published_at,
        srn: issue.srn,
        decorated_label: issue.decorated_label,
    }
}

pub fn workflow(workflow: Workflow) -> wire::Workflow {
    wire::Workflow {
        id: id(workflow.id),
        uuid: workflow.uuid,
        slug: workflow.slug,
        name: workflow.name,
        status: workflow.status.to_string(),
        is_web: flag(workflow.is_web),
        is_print: flag(workflow.is_print),
        priority: workflow.priority.to_string(),
        is_content: flag(workflow.is_content),
        is_assignment: flag(workflow.is_assignment),
        srn: workflow.srn,
    }
}

pub fn workflow_section(section: WorkflowSection) -> wire::WorkflowSection {
    wire::WorkflowSection {
        id: id(section.id),
        uuid: section.uuid,
        workflow_id: opt_id(section.workflow_id),
        name: section.name,
        slug: section.slug,
        created_at: section.created_at,
        modified_at: section.modified_at,
        srn: section.srn,
        is_print: flag(section.is_print),
        is_web: flag(section.is_web),
    }
}

fn print_audit(entry: PrintAuditEntry) -> wire::AuditEntry {
    wire::AuditEntry {
        id: id(entry.id),
        uuid: entry.uuid,
        action: entry.action,
        detail: entry.detail,
        user_id: opt_id(entry.user_id),
        user_name: entry.user_name,
        created_at: entry.created_at,
    }
}

pub fn print_document(doc: PrintDocument) -> wire::PrintDocument {
    wire::PrintDocument {
        id: id(doc.id),
        uuid: doc.uuid,
        label: doc.label,
        tracking_label: doc.tracking_label,
        tracking_path: doc.tracking_path,
        issue_id: id(doc.issue_id),
        workflow_id: id(doc.workflow_id),
        print_locked: flag(doc.print_locked_user.is_some()),
        print_locked_user: doc.print_locked_user,
        created_at: doc.created_at,
        modified_at: doc.modified_at,
        assignee_id: id(doc.assignee_id),
        workflow_section_id: id(doc.workflow_section_id),
        issue: doc.issue.map(issue),
        workflow: doc.workflow.map(workflow),
        audit: doc.audit.into_iter().map(print_audit).collect(),
    }
}

fn export(export: Export) -> wire::Export {
    let lock = export.locked_by.map(|user_id| wire::ExportLock {
        user_id: id(user_id),
        user: export.lock_user.clone().map(user),
        locked_at: export.locked_at.clone(),
    });
    wire::Export {
        id: id(export.id),
        uuid: export.uuid,
        content_id: id(export.content_id),
        workflow_id: id(export.workflow_id),
        assignee_id: id(export.assignee_id),
        issue_id: id(export.issue_id),
        workflow_section_id: id(export.workflow_section_id),
        content: export.body,
        version: export.version.to_string(),
        created_at: export.created_at,
        modified_at: export.modified_at,
        user_id: opt_id(export.user_id),
        user: export.user.map(user),
        lock,
    }
}
