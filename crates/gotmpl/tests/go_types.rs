//! Go value kinds the template engine models beyond the corpus: imaginary constants,
//! slice capacity, missing keys versus nil for `len`.

use capstan_gotmpl::Templates;
use capstan_value::Value;

fn run(text: &str, data: &Value) -> Result<String, String> {
    let mut t = Templates::new(Default::default());
    t.parse("t", text)?;
    t.execute("t", data).map_err(|e| e.to_string())
}

#[test]
fn imaginary_constants_print_like_go() {
    let data = Value::Nil;
    assert_eq!(
        run("{{ 1i }} {{ 2.5i }} {{ -1i }} {{ 0i }}", &data).unwrap(),
        "(0+1i) (0+2.5i) (0-1i) 0"
    );
    assert_eq!(run(r#"{{ printf "%T" 1i }}"#, &data).unwrap(), "complex128");
}

#[test]
fn json_decoded_lists_keep_appends_spare_capacity() {
    let data = capstan_value::json::from_json(r#"{"l":["a","b","c"],"m":{"n":null}}"#).unwrap();
    assert_eq!(run("{{ slice .l 0 4 }}", &data).unwrap(), "[a b c <nil>]");
    assert!(run("{{ slice .l 0 5 }}", &data)
        .unwrap_err()
        .ends_with("index out of range: 5"));
    assert!(run("{{ len .m.n }}", &data)
        .unwrap_err()
        .ends_with("error calling len: len of nil pointer"));
    assert!(run("{{ len .m.x }}", &data)
        .unwrap_err()
        .ends_with("error calling len: reflect: call of reflect.Value.Type on zero Value"));
}

#[test]
fn huge_integer_precision_is_linear() {
    let out = run(r#"{{ printf "%.999999d" 7 }}"#, &Value::Nil).unwrap();
    assert_eq!(out.len(), 999_999);
    assert!(out.ends_with("07"));
}
