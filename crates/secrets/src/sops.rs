//! sops documents: the tree (YAML with its comments, JSON, dotenv, binary) in document
//! order, its `sops` metadata, value decryption (`ENC[AES256_GCM,…]`, AES-256-GCM with
//! the key path as additional data) and the MAC over every value, as sops v3 does.

use crate::age::{self, Identity};
use aes_gcm::aead::generic_array::typenum::U32;
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::aes::Aes256;
use aes_gcm::AesGcm;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use capstan_value::{Str, Value};
use capstan_yaml::{compose_first, Document, Generation, NodeKind, Scalar};
use sha2::{Digest, Sha512};
use std::collections::BTreeMap;

/// The file formats sops stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `.yaml`, `.yml`.
    Yaml,
    /// `.json`.
    Json,
    /// `.env`: `KEY=value` lines.
    Dotenv,
    /// Anything else: the whole file is one `data` value.
    Binary,
}

impl Format {
    /// sops chooses the format by the file extension; anything else is binary.
    pub fn of(path: &str) -> Format {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            Format::Yaml
        } else if lower.ends_with(".json") {
            Format::Json
        } else if lower.ends_with(".env") {
            Format::Dotenv
        } else {
            Format::Binary
        }
    }
}

/// A leaf or branch of a sops tree, in document order.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// A mapping, its keys in document order.
    Map(Vec<(String, Node)>),
    /// A sequence.
    List(Vec<Node>),
    /// A string.
    Str(String),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A null.
    Null,
    /// A YAML or dotenv comment (its text after `#`).
    Comment(String),
}

/// The `sops` metadata block.
#[derive(Clone, Debug, Default)]
pub struct Metadata {
    /// `(recipient, armored age file)` per age recipient.
    pub age: Vec<(String, String)>,
    /// Key types present other than age (`pgp`, `kms`, …).
    pub other_keys: Vec<String>,
    /// `lastmodified` (RFC 3339), part of the MAC.
    pub lastmodified: String,
    /// The encrypted MAC over the values.
    pub mac: String,
    /// Keys ending with this stay in plain text.
    pub unencrypted_suffix: String,
    /// Only keys ending with this are encrypted.
    pub encrypted_suffix: String,
    /// Keys matching this stay in plain text.
    pub unencrypted_regex: String,
    /// Only keys matching this are encrypted.
    pub encrypted_regex: String,
    /// Values after a comment matching this stay in plain text.
    pub unencrypted_comment_regex: String,
    /// Only values after a comment matching this are encrypted.
    pub encrypted_comment_regex: String,
    /// The MAC covers only the encrypted values.
    pub mac_only_encrypted: bool,
}

/// Why a sops file could not be decrypted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SopsError {
    /// The document does not parse (the parser's text).
    #[error("{0}")]
    Parse(String),
    /// The document has no `sops` metadata.
    #[error("sops metadata not found")]
    NotEncrypted,
    /// No age identity opened the data key; the key types the file has.
    #[error("{0}")]
    NoKey(String),
    /// A value or the data key does not decrypt (what failed).
    #[error("{0}")]
    Decrypt(String),
    /// The values decrypted, but their MAC is not the stored one.
    #[error(
        "failed to verify data integrity: MAC mismatch. File has {stored}, computed {computed}"
    )]
    Mac {
        /// The MAC the file stores.
        stored: String,
        /// The MAC of the decrypted values.
        computed: String,
    },
}

/// The decrypted document.
#[derive(Clone, Debug)]
pub struct Decrypted {
    /// The document, values in plain text, comments kept.
    pub tree: Node,
    /// The format it was read in (and prints back as).
    pub format: Format,
}

fn leaf_of(s: &Scalar) -> Node {
    match s {
        Scalar::Null => Node::Null,
        Scalar::Bool(b) => Node::Bool(*b),
        Scalar::Int(i) => Node::Int(*i),
        Scalar::Uint(u) => Node::Float(*u as f64),
        Scalar::Float(f) => Node::Float(*f),
        Scalar::Str(s) => Node::Str(s.clone()),
        Scalar::Bytes(b) => Node::Str(String::from_utf8_lossy(b).into_owned()),
        Scalar::Timestamp(t) => Node::Str(t.rfc3339_nano()),
    }
}

/// Whole-line comments of a YAML text: (line, text after `#`).
fn yaml_comments(text: &str) -> Vec<(u32, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let t = l.trim_start();
            t.strip_prefix('#').map(|c| (i as u32 + 1, c.to_string()))
        })
        .collect()
}

struct YamlWalk<'a> {
    doc: &'a Document,
    comments: Vec<(u32, String)>,
    next_comment: usize,
    json: bool,
}

impl YamlWalk<'_> {
    fn comments_before(&mut self, line: u32, out: &mut Vec<Node>) {
        while let Some((l, c)) = self.comments.get(self.next_comment) {
            if *l >= line {
                break;
            }
            out.push(Node::Comment(c.clone()));
            self.next_comment += 1;
        }
    }

    fn node(&mut self, i: usize) -> Result<Node, SopsError> {
        let n = self.doc.node(i);
        match &n.kind {
            NodeKind::Alias(target, _) => self.node(*target),
            NodeKind::Scalar {
                value,
                plain_implicit,
                ..
            } => {
                if !*plain_implicit || n.tag.as_deref() == Some("tag:yaml.org,2002:str") {
                    return Ok(Node::Str(value.clone()));
                }
                let (_, s) =
                    capstan_yaml::resolve(Generation::V3, n.tag.as_deref().unwrap_or(""), value)
                        .map_err(|e| SopsError::Parse(e.to_string()))?;
                let leaf = leaf_of(&s);
                Ok(match (self.json, leaf) {
                    (true, Node::Int(i)) => Node::Float(i as f64),
                    (_, l) => l,
                })
            }
            NodeKind::Seq(items) => {
                let mut out = Vec::new();
                for &it in items {
                    let line = self.doc.node(it).line();
                    let mut cs = Vec::new();
                    self.comments_before(line, &mut cs);
                    out.extend(cs);
                    out.push(self.node(it)?);
                }
                Ok(Node::List(out))
            }
            NodeKind::Map(entries) => {
                let mut out: Vec<(String, Node)> = Vec::new();
                for &(k, v) in entries {
                    let line = self.doc.node(k).line();
                    let mut cs = Vec::new();
                    self.comments_before(line, &mut cs);
                    for c in cs {
                        out.push((String::new(), c));
                    }
                    let key = match &self.doc.node(k).kind {
                        NodeKind::Scalar { value, .. } => value.clone(),
                        _ => return Err(SopsError::Parse("sops: map keys must be scalars".into())),
                    };
                    out.push((key, self.node(v)?));
                }
                Ok(Node::Map(out))
            }
        }
    }
}

/// Parses a YAML or JSON sops document in order.
fn parse_tree(text: &str, json: bool) -> Result<Node, SopsError> {
    let doc = compose_first(text, Generation::V3)
        .map_err(|e| SopsError::Parse(e.to_string()))?
        .ok_or(SopsError::NotEncrypted)?;
    let root = doc.root.ok_or(SopsError::NotEncrypted)?;
    let mut w = YamlWalk {
        doc: &doc,
        comments: if json {
            Vec::new()
        } else {
            yaml_comments(text)
        },
        next_comment: 0,
        json,
    };
    let mut tree = w.node(root)?;
    if let Node::Map(entries) = &mut tree {
        for (_, c) in w.comments[w.next_comment..].iter() {
            entries.push((String::new(), Node::Comment(c.clone())));
        }
    }
    Ok(tree)
}

/// A dotenv file: `KEY=VALUE` lines (values as strings) and comments, plus the flattened
/// `sops_…` metadata.
fn parse_dotenv(text: &str) -> (Node, BTreeMap<String, String>) {
    let mut items = Vec::new();
    let mut meta = BTreeMap::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if let Some(c) = line.trim_start().strip_prefix('#') {
            items.push((String::new(), Node::Comment(c.to_string())));
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        if let Some(m) = k.strip_prefix("sops_") {
            meta.insert(m.to_string(), v.replace("\\n", "\n"));
        } else {
            items.push((k.to_string(), Node::Str(v.to_string())));
        }
    }
    (Node::Map(items), meta)
}

fn get<'a>(entries: &'a [(String, Node)], key: &str) -> Option<&'a Node> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn text_of(n: Option<&Node>) -> String {
    match n {
        Some(Node::Str(s)) => s.clone(),
        Some(Node::Int(i)) => i.to_string(),
        Some(Node::Bool(b)) => b.to_string(),
        Some(Node::Float(f)) => capstan_gocompat::strconv::format_float(*f, 'f', -1, 64),
        _ => String::new(),
    }
}

fn metadata_from_tree(sops: &Node) -> Metadata {
    let Node::Map(entries) = sops else {
        return Metadata::default();
    };
    let mut m = Metadata {
        lastmodified: text_of(get(entries, "lastmodified")),
        mac: text_of(get(entries, "mac")),
        unencrypted_suffix: text_of(get(entries, "unencrypted_suffix")),
        encrypted_suffix: text_of(get(entries, "encrypted_suffix")),
        unencrypted_regex: text_of(get(entries, "unencrypted_regex")),
        encrypted_regex: text_of(get(entries, "encrypted_regex")),
        unencrypted_comment_regex: text_of(get(entries, "unencrypted_comment_regex")),
        encrypted_comment_regex: text_of(get(entries, "encrypted_comment_regex")),
        mac_only_encrypted: matches!(get(entries, "mac_only_encrypted"), Some(Node::Bool(true))),
        ..Default::default()
    };
    if let Some(Node::List(items)) = get(entries, "age") {
        for it in items {
            if let Node::Map(e) = it {
                m.age
                    .push((text_of(get(e, "recipient")), text_of(get(e, "enc"))));
            }
        }
    }
    for kind in [
        "pgp",
        "kms",
        "gcp_kms",
        "azure_kv",
        "hc_vault",
        "key_groups",
    ] {
        if matches!(get(entries, kind), Some(Node::List(l)) if !l.is_empty()) {
            m.other_keys.push(kind.to_string());
        }
    }
    m
}

fn metadata_from_dotenv(meta: &BTreeMap<String, String>) -> Metadata {
    let mut m = Metadata {
        lastmodified: meta.get("lastmodified").cloned().unwrap_or_default(),
        mac: meta.get("mac").cloned().unwrap_or_default(),
        unencrypted_suffix: meta.get("unencrypted_suffix").cloned().unwrap_or_default(),
        encrypted_suffix: meta.get("encrypted_suffix").cloned().unwrap_or_default(),
        unencrypted_regex: meta.get("unencrypted_regex").cloned().unwrap_or_default(),
        encrypted_regex: meta.get("encrypted_regex").cloned().unwrap_or_default(),
        mac_only_encrypted: meta.get("mac_only_encrypted").is_some_and(|v| v == "true"),
        ..Default::default()
    };
    for i in 0.. {
        let enc = meta.get(&format!("age__list_{i}__map_enc"));
        let rec = meta.get(&format!("age__list_{i}__map_recipient"));
        match (rec, enc) {
            (Some(r), Some(e)) => m.age.push((r.clone(), e.clone())),
            _ => break,
        }
    }
    for kind in ["pgp", "kms", "gcp_kms", "azure_kv", "hc_vault"] {
        if meta
            .keys()
            .any(|k| k.starts_with(&format!("{kind}__list_")))
        {
            m.other_keys.push(kind.to_string());
        }
    }
    m
}

/// One `ENC[AES256_GCM,data:…,iv:…,tag:…,type:…]` value.
struct Encrypted {
    data: Vec<u8>,
    iv: Vec<u8>,
    tag: Vec<u8>,
    ty: String,
}

fn parse_enc(s: &str) -> Option<Encrypted> {
    let inner = s.strip_prefix("ENC[AES256_GCM,")?.strip_suffix(']')?;
    let mut fields = BTreeMap::new();
    for part in inner.split(',') {
        let (k, v) = part.split_once(':')?;
        fields.insert(k, v);
    }
    let b64 = |k: &str| STANDARD.decode(fields.get(k)?.as_bytes()).ok();
    Some(Encrypted {
        data: b64("data")?,
        iv: b64("iv")?,
        tag: b64("tag")?,
        ty: fields.get("type")?.to_string(),
    })
}

fn decrypt_value(s: &str, key: &[u8; 32], aad: &str) -> Result<Node, SopsError> {
    if s.is_empty() {
        return Ok(Node::Str(String::new()));
    }
    let e = parse_enc(s).ok_or_else(|| {
        SopsError::Decrypt(format!(
            "input string {s:?} does not match sops' data format"
        ))
    })?;
    if e.iv.len() != 32 {
        return Err(SopsError::Decrypt(
            "could not decrypt with AES_GCM: IV is not 32 bytes".into(),
        ));
    }
    let cipher = AesGcm::<Aes256, U32>::new_from_slice(key)
        .map_err(|_| SopsError::Decrypt("the data key is not 32 bytes".into()))?;
    let mut ct = e.data.clone();
    ct.extend_from_slice(&e.tag);
    let plain = cipher
        .decrypt(
            aes_gcm::aead::generic_array::GenericArray::from_slice(&e.iv),
            Payload {
                msg: &ct,
                aad: aad.as_bytes(),
            },
        )
        .map_err(|_| {
            SopsError::Decrypt(
                "could not decrypt with AES_GCM: cipher: message authentication failed".into(),
            )
        })?;
    let text = String::from_utf8_lossy(&plain).into_owned();
    let bad =
        |t: &str| SopsError::Decrypt(format!("could not decrypt value of type {t}: {text:?}"));
    Ok(match e.ty.as_str() {
        "str" | "bytes" => Node::Str(text),
        "comment" => Node::Comment(text),
        "int" => Node::Int(text.parse().map_err(|_| bad("int"))?),
        "float" => Node::Float(text.parse().map_err(|_| bad("float"))?),
        "bool" => Node::Bool(match text.as_str() {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => true,
            "0" | "f" | "F" | "FALSE" | "false" | "False" => false,
            _ => return Err(bad("bool")),
        }),
        other => return Err(SopsError::Decrypt(format!("unknown type {other}"))),
    })
}

/// sops' `ToBytes` of a decrypted value, for the MAC.
fn mac_bytes(n: &Node) -> Vec<u8> {
    match n {
        Node::Str(s) | Node::Comment(s) => s.as_bytes().to_vec(),
        Node::Int(i) => i.to_string().into_bytes(),
        Node::Float(f) => capstan_gocompat::strconv::format_float(*f, 'f', -1, 64).into_bytes(),
        Node::Bool(true) => b"True".to_vec(),
        Node::Bool(false) => b"False".to_vec(),
        _ => Vec::new(),
    }
}

struct Rules {
    unencrypted_suffix: String,
    encrypted_suffix: String,
    unencrypted_regex: Option<regex::Regex>,
    encrypted_regex: Option<regex::Regex>,
    mac_only_encrypted: bool,
}

impl Rules {
    fn encrypted(&self, path: &[String]) -> bool {
        if !self.unencrypted_suffix.is_empty() {
            return !path.iter().any(|p| p.ends_with(&self.unencrypted_suffix));
        }
        if !self.encrypted_suffix.is_empty() {
            return path.iter().any(|p| p.ends_with(&self.encrypted_suffix));
        }
        if let Some(re) = &self.unencrypted_regex {
            return !path.iter().any(|p| re.is_match(p));
        }
        if let Some(re) = &self.encrypted_regex {
            return path.iter().any(|p| re.is_match(p));
        }
        true
    }
}

struct Walk<'a> {
    key: &'a [u8; 32],
    rules: Rules,
    hash: Sha512,
}

impl Walk<'_> {
    fn node(&mut self, n: &Node, path: &mut Vec<String>) -> Result<Node, SopsError> {
        match n {
            Node::Map(entries) => {
                let mut out = Vec::new();
                for (k, v) in entries {
                    if path.is_empty() && k == "sops" {
                        continue;
                    }
                    if let Node::Comment(_) = v {
                        out.push((k.clone(), self.leaf(v, path)?));
                        continue;
                    }
                    path.push(k.clone());
                    let d = self.node(v, path)?;
                    path.pop();
                    out.push((k.clone(), d));
                }
                Ok(Node::Map(out))
            }
            Node::List(items) => items
                .iter()
                .map(|x| self.node(x, path))
                .collect::<Result<_, _>>()
                .map(Node::List),
            Node::Null => Ok(Node::Null),
            leaf => self.leaf(leaf, path),
        }
    }

    fn leaf(&mut self, n: &Node, path: &[String]) -> Result<Node, SopsError> {
        let encrypted = self.rules.encrypted(path);
        let value = if encrypted {
            let aad = format!("{}:", path.join(":"));
            match n {
                Node::Str(s) => decrypt_value(s, self.key, &aad)?,
                Node::Comment(s) if s.starts_with("ENC[") => {
                    match decrypt_value(s, self.key, &aad)? {
                        Node::Str(t) | Node::Comment(t) => Node::Comment(t),
                        other => other,
                    }
                }
                other => other.clone(),
            }
        } else {
            n.clone()
        };
        // Comments are decrypted but not part of the MAC.
        if (!self.rules.mac_only_encrypted || encrypted) && !matches!(value, Node::Comment(_)) {
            self.hash.update(mac_bytes(&value));
        }
        Ok(value)
    }
}

/// Where age identities come from, in sops' order.
pub fn identities_from_env(
    env: &dyn Fn(&str) -> Option<String>,
    read: &dyn Fn(&str) -> Option<String>,
) -> Vec<Identity> {
    let mut ids = Vec::new();
    if let Some(k) = env("SOPS_AGE_KEY") {
        ids.extend(Identity::parse_all(&k));
    }
    if let Some(f) = env("SOPS_AGE_KEY_FILE") {
        if let Some(t) = read(&f) {
            ids.extend(Identity::parse_all(&t));
        }
    }
    let config = env("XDG_CONFIG_HOME")
        .filter(|s| !s.is_empty())
        .or_else(|| env("HOME").map(|h| format!("{h}/.config")));
    if let Some(c) = config {
        if let Some(t) = read(&format!("{c}/sops/age/keys.txt")) {
            ids.extend(Identity::parse_all(&t));
        }
    }
    ids
}

/// Decrypts a sops document with age identities. `name` is the file (for messages and
/// the format).
pub fn decrypt(name: &str, data: &[u8], identities: &[Identity]) -> Result<Decrypted, SopsError> {
    let format = Format::of(name);
    let text = String::from_utf8_lossy(data).into_owned();
    let (tree, meta) = match format {
        Format::Dotenv => {
            let (tree, meta) = parse_dotenv(&text);
            if meta.is_empty() {
                return Err(SopsError::NotEncrypted);
            }
            (tree, metadata_from_dotenv(&meta))
        }
        Format::Yaml | Format::Json | Format::Binary => {
            let tree = parse_tree(&text, format != Format::Yaml)?;
            let Node::Map(entries) = &tree else {
                return Err(SopsError::NotEncrypted);
            };
            let Some(sops) = get(entries, "sops") else {
                return Err(SopsError::NotEncrypted);
            };
            let meta = metadata_from_tree(sops);
            (tree, meta)
        }
    };
    let mut key = None;
    let mut age_errors = Vec::new();
    for (recipient, enc) in &meta.age {
        match age::decrypt(enc.as_bytes(), identities) {
            Ok(k) if k.len() == 32 => {
                let mut a = [0u8; 32];
                a.copy_from_slice(&k);
                key = Some(a);
                break;
            }
            Ok(_) => age_errors.push(format!("{recipient}: the data key is not 32 bytes")),
            Err(e) => age_errors.push(format!("{recipient}: {e}")),
        }
    }
    let Some(key) = key else {
        let mut kinds: Vec<String> = Vec::new();
        if !meta.age.is_empty() {
            kinds.push("age".into());
        }
        kinds.extend(meta.other_keys.iter().cloned());
        let detail = if meta.age.is_empty() {
            String::new()
        } else if identities.is_empty() {
            " (no age identity found: set SOPS_AGE_KEY or SOPS_AGE_KEY_FILE, or put keys in ~/.config/sops/age/keys.txt)".to_string()
        } else {
            format!(" ({})", age_errors.join("; "))
        };
        return Err(SopsError::NoKey(format!(
            "could not decrypt the data key with any of the file's keys: {}{detail}",
            if kinds.is_empty() {
                "none".to_string()
            } else {
                kinds.join(", ")
            }
        )));
    };
    let compile = |s: &str| {
        if s.is_empty() {
            Ok(None)
        } else {
            regex::Regex::new(s)
                .map(Some)
                .map_err(|e| SopsError::Parse(e.to_string()))
        }
    };
    let mut w = Walk {
        key: &key,
        rules: Rules {
            unencrypted_suffix: meta.unencrypted_suffix.clone(),
            encrypted_suffix: meta.encrypted_suffix.clone(),
            unencrypted_regex: compile(&meta.unencrypted_regex)?,
            encrypted_regex: compile(&meta.encrypted_regex)?,
            mac_only_encrypted: meta.mac_only_encrypted,
        },
        hash: Sha512::new(),
    };
    let plain = w.node(&tree, &mut Vec::new())?;
    let computed: String = w
        .hash
        .finalize()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect();
    let stored = match decrypt_value(&meta.mac, &key, &meta.lastmodified)? {
        Node::Str(s) => s,
        _ => String::new(),
    };
    if stored != computed {
        return Err(SopsError::Mac { stored, computed });
    }
    Ok(Decrypted {
        tree: plain,
        format,
    })
}

/// A decrypted tree as a Go value (maps sorted, comments dropped).
pub fn to_value(n: &Node) -> Value {
    match n {
        Node::Map(entries) => Value::map_from(
            entries
                .iter()
                .filter(|(_, v)| !matches!(v, Node::Comment(_)))
                .map(|(k, v)| (Str::from(k.as_str()), to_value(v)))
                .collect(),
        ),
        Node::List(items) => Value::list_from(
            items
                .iter()
                .filter(|v| !matches!(v, Node::Comment(_)))
                .map(to_value)
                .collect(),
        ),
        Node::Str(s) => Value::from(s.as_str()),
        Node::Int(i) => Value::Int(*i),
        Node::Float(f) => Value::Float64(*f),
        Node::Bool(b) => Value::Bool(*b),
        Node::Null | Node::Comment(_) => Value::Nil,
    }
}

impl Decrypted {
    /// The plaintext as `sops -d` would print it, in a form helmfile reads: YAML for
    /// YAML and JSON documents, `KEY=VALUE` lines for dotenv, the raw data for binary.
    pub fn text(&self) -> String {
        match self.format {
            Format::Binary => match &self.tree {
                Node::Map(e) => text_of(get(e, "data")),
                _ => String::new(),
            },
            Format::Dotenv => match &self.tree {
                Node::Map(e) => e
                    .iter()
                    .map(|(k, v)| match v {
                        Node::Comment(c) => format!("#{c}\n"),
                        other => format!("{k}={}\n", text_of(Some(other))),
                    })
                    .collect(),
                _ => String::new(),
            },
            Format::Yaml | Format::Json => {
                capstan_yaml::encode_helmfile(&to_value(&self.tree)).unwrap_or_default()
            }
        }
    }
}
