//! Helm 4's post-rendering: every rendered file's documents are annotated with their
//! file name (`postrenderer.helm.sh/postrender-filename`), merged into one stream, run
//! through the post-renderer, and split back into files by that annotation; documents
//! the post-renderer added become `generated-by-postrender-N.yaml` (N: the document's
//! index in its output). Hooks are post-rendered too; NOTES.txt and `crds/` are not.

use capstan_yaml::roundtrip::{emit_stream, parse_stream, set_annotation, take_annotation};
use std::collections::BTreeMap;
use std::sync::Arc;

capstan_source::message_error!(
    /// Why a post-renderer failed or its output could not be split back (Helm's text).
    PostRenderError
);

/// The annotation carrying a document's file name through the post-renderer.
pub const FILENAME_ANNOTATION: &str = "postrenderer.helm.sh/postrender-filename";

/// What a post-renderer does: rendered manifests in, manifests (or an error) out.
pub type RenderFn = dyn Fn(&str) -> Result<String, PostRenderError> + Send + Sync;

/// A post-renderer (helm runs a command).
#[derive(Clone)]
pub struct PostRenderer(pub Arc<RenderFn>);

impl std::fmt::Debug for PostRenderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PostRenderer")
    }
}

/// The rendered files (partials and empty files skipped) as one annotated stream.
pub fn annotate_and_merge(files: &BTreeMap<String, String>) -> Result<String, PostRenderError> {
    let mut all = Vec::new();
    for (name, content) in crate::manifests::manifest_files(files) {
        let docs = parse_stream(content).map_err(|e| format!("parsing {name}: {e}"))?;
        for mut d in docs {
            set_annotation(&mut d, FILENAME_ANNOTATION, name)
                .map_err(|e| format!("annotating {name}: {e}"))?;
            all.push(d);
        }
    }
    Ok(emit_stream(&all))
}

/// The post-renderer's output back as files, by the annotation.
pub fn split_and_deannotate(output: &str) -> Result<crate::render::RenderedFiles, PostRenderError> {
    let docs = parse_stream(output).map_err(|e| format!("error parsing YAML: {e}"))?;
    let mut by_file: BTreeMap<String, Vec<capstan_yaml::ENode>> = BTreeMap::new();
    for (i, mut d) in docs.into_iter().enumerate() {
        let name = take_annotation(&mut d, FILENAME_ANNOTATION)
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| format!("generated-by-postrender-{i}.yaml"));
        by_file.entry(name).or_default().push(d);
    }
    Ok(by_file
        .into_iter()
        .map(|(name, docs)| (name, emit_stream(&docs)))
        .collect())
}

/// Runs `renderer` over the rendered files as Helm 4 does.
pub(crate) fn post_render(
    files: &BTreeMap<String, String>,
    renderer: &PostRenderer,
) -> Result<crate::render::RenderedFiles, PostRenderError> {
    let merged = annotate_and_merge(files)
        .map_err(|e| format!("error while annotating files for post render: {e}"))?;
    let output = (renderer.0)(&merged)
        .map_err(|e| format!("error while running post render on files: {e}"))?;
    Ok(split_and_deannotate(&output)
        .map_err(|e| format!("error while splitting post-rendered manifests: {e}"))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_documents_get_generated_names() {
        let mut files = BTreeMap::new();
        files.insert(
            "raw/templates/a.yaml".to_string(),
            "kind: ConfigMap\nmetadata:\n  name: a\n".to_string(),
        );
        files.insert(
            "raw/templates/_helpers.tpl".to_string(),
            "{{/* */}}".to_string(),
        );
        let add = PostRenderer(Arc::new(|s: &str| {
            Ok(format!(
                "{s}---\nkind: ConfigMap\nmetadata:\n  name: extra\n"
            ))
        }));
        let out = post_render(&files, &add).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(
            out["raw/templates/a.yaml"],
            "kind: ConfigMap\nmetadata:\n  name: a\n"
        );
        assert_eq!(
            out["generated-by-postrender-1.yaml"],
            "kind: ConfigMap\nmetadata:\n  name: extra\n"
        );
        let failing = PostRenderer(Arc::new(|_: &str| Err("exit status 1".into())));
        assert_eq!(
            post_render(&files, &failing).unwrap_err(),
            "error while running post render on files: exit status 1".into()
        );
    }
}
