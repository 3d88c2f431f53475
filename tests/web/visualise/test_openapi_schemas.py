"""/openapi.json documents the JSON API: every success body field by field, with a description of each field, the
refusals each operation can answer with, in the body the app sends (`{"detail": "<sentence>"}`), and the limits of
each parameter and field, the app's own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, get_args

import jsonschema_rs
import pytest
from pydantic import BaseModel

from app.formats import (
    BLOCK_FORMAT_IDS,
    CUSTOM_NAN_STYLES,
    MAX_EXPONENT_BITS,
    MIN_IEEE_EXPONENT_BITS,
    OVERFLOW_POLICIES,
    ROUNDINGS,
    SUMMABLE_FORMATS,
    SUMMATION_METHODS,
    spec,
)
from app.learn import ACCUMULATION_DISTRIBUTIONS
from app.quiz import questions
from app.training import DATASETS, RECIPES, SCENARIOS, WEIGHT_FORMATS
from app.web.embed.schemas import OEmbedAnswer
from app.web.platform.refusal_handlers import ERROR_SCHEMA
from app.web.platform.schemas import ReadinessAnswer, RefusalAnswer
from app.web.quiz import schemas as quiz_schemas
from app.web.visualise import schemas as format_schemas

# The refusals each operation can answer with, besides the 422 of a request its parameters do not allow.
REFUSALS = {
    ("get", "/api/formats/custom"): {422},
    ("get", "/api/formats/custom/decode"): {422},
    ("get", "/api/formats/custom/encode"): {414, 422},
    ("get", "/api/formats/{format_id}"): {404},
    ("get", "/api/formats/{format_id}/decode"): {404, 422},
    ("get", "/api/formats/{format_id}/encode"): {404, 414, 422},
    ("get", "/api/compare"): {414, 422},
    ("post", "/api/blocks/quantize"): {400, 422},
    ("post", "/api/train"): {400, 422, 429, 503},
    ("get", "/api/memory"): {422},
    ("get", "/api/accumulation"): {422},
    ("get", "/api/arithmetic"): {404, 414, 422},
    ("get", "/api/arithmetic/chain"): {404, 414, 422},
    ("post", "/api/dot"): {400, 422, 429},
    ("post", "/api/quiz/attempts"): {429},
    ("post", "/api/quiz/attempts/{attempt_id}/answers"): {400, 404, 409, 422},
    ("post", "/api/quiz/attempts/{attempt_id}/finish"): {400, 404, 422, 429},
    ("get", "/api/certificates/{certificate_id}"): {404, 429},
    ("get", "/certificates/{certificate_id}/credential.jwt"): {404, 410, 429},
    ("get", "/certificates/{certificate_id}/credential.json"): {404, 410, 429},
    ("get", "/credentials/status/{list_number}"): {404},
    ("get", "/.well-known/jwks/{thumbprint}.json"): {404},
}
# Not JSON, so documented by media type alone.
OTHER_MEDIA = {
    ("get", "/certificates/{certificate_id}/credential.jwt"): "application/jwt",
    ("get", "/certificates/{certificate_id}/credential.json"): "application/vc",
    ("get", "/credentials/status/{list_number}"): "application/jwt",
}


@pytest.fixture
def openapi(client) -> dict[str, Any]:
    return client.get("/openapi.json").json()


def operations(openapi: dict[str, Any]) -> Iterator[tuple[tuple[str, str], dict[str, Any]]]:
    for path, methods in openapi["paths"].items():
        for method, operation in methods.items():
            yield (method, path), operation


def success(operation: dict[str, Any]) -> dict[str, Any]:
    responses = operation["responses"]
    return responses.get("200") or responses["201"]


def resolve(openapi: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = openapi["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def objects_in(openapi: dict[str, Any], schema: dict[str, Any], seen: set[str]) -> Iterator[dict[str, Any]]:
    """Every object schema a body of `schema` can hold, itself included, each named component once."""
    if "$ref" in schema:
        name = schema["$ref"]
        if name in seen:
            return
        seen.add(name)
    schema = resolve(openapi, schema)
    if "properties" in schema:
        yield schema
    for part in (*schema.get("properties", {}).values(), *schema.get("anyOf", ()), schema.get("items"),
                 schema.get("additionalProperties")):
        if isinstance(part, dict):
            yield from objects_in(openapi, part, seen)


def test_every_operation_is_listed_here(openapi):
    """A new operation gets its refusals and its media type written down above."""
    assert {key for key, _ in operations(openapi)} - {("get", "/api/formats"), ("get", "/.well-known/jwks.json")} \
        == set(REFUSALS)


def test_every_json_success_has_a_schema_whose_every_field_is_described(openapi):
    checked = 0
    for key, operation in operations(openapi):
        content = success(operation)["content"]
        if key in OTHER_MEDIA:
            assert list(content) == [OTHER_MEDIA[key]], key
            continue
        assert list(content) == ["application/json"], key
        objects = list(objects_in(openapi, content["application/json"]["schema"], set()))
        assert objects, f"{key}: its body has no fields in the schema"
        for schema in objects:
            assert schema.get("description"), f"{key}: {schema.get('title')} has no description"
            undescribed = [name for name, field in schema["properties"].items() if not field.get("description")]
            assert not undescribed, f"{key}: {schema.get('title')} does not describe {undescribed}"
        checked += 1
    assert checked == 21  # arithmetic, its chain and the dot product among them


def test_the_refusals_that_can_happen_are_listed_with_the_sentence_body(openapi):
    for key, operation in operations(openapi):
        documented = {int(code) for code in operation["responses"] if code[0] in "45"}
        assert REFUSALS.get(key, set()) <= documented, key
        for code in documented:
            answer = operation["responses"][str(code)]
            assert answer["description"], (key, code)
            body = resolve(openapi, answer["content"]["application/json"]["schema"])
            assert body["properties"]["detail"]["type"] == "string" and body["required"] == ["detail"], (key, code)


def test_the_refusal_model_is_the_error_schema():
    schema = RefusalAnswer.model_json_schema()
    assert schema["required"] == ERROR_SCHEMA["required"]
    detail, expected = schema["properties"]["detail"], ERROR_SCHEMA["properties"]["detail"]
    assert {name: detail[name] for name in expected} == expected


def parameter(openapi: dict[str, Any], route: str, name: str) -> dict[str, Any]:
    """The schema of one query or path parameter of GET `route`."""
    return next(p["schema"] for p in openapi["paths"][route]["get"]["parameters"] if p["name"] == name)


def allows(schema: dict[str, Any], value: Any) -> bool:
    return jsonschema_rs.validator_for(schema).is_valid(value)


@pytest.mark.parametrize(("path", "name"), [
    ("/api/formats/float16/decode?bits=", "bits"),
    ("/api/formats/float16/encode?value=", "value"),
    ("/api/formats/float16/encode?value=1&rounding=", "rounding"),
    ("/api/compare?value=", "value"),
    ("/api/memory?params=", "params"),
    ("/api/memory?params=7B&format=", "format"),
])
def test_an_empty_string_is_refused_by_the_schema_too(client, openapi, path, name):
    response = client.get(path)
    assert response.status_code == 422
    assert response.json()["detail"] == f"{name} is empty; it needs at least one character."
    route = path.split("?")[0].replace("float16", "{format_id}")
    assert not allows(parameter(openapi, route, name), "")


def test_empty_strings_in_request_bodies_are_refused_by_the_schema(openapi):
    schemas = openapi["components"]["schemas"]
    assert not allows(schemas["QuantizeRequest"]["properties"]["format"], "")
    train = schemas["TrainRequest"]["properties"]
    assert not allows(train["scenario"], "")
    assert not allows(train["recipes"], [""])


def enum(schema: dict[str, Any]) -> list[Any]:
    """The names a schema lists: its own, its items', or those of its first alternative (of a field that may be
    null)."""
    if "anyOf" in schema:
        return enum(schema["anyOf"][0])
    return schema["enum"] if "enum" in schema else schema["items"]["enum"]


def test_the_schema_names_the_ids_the_app_knows(openapi):
    """Each name a parameter or field takes is listed in /openapi.json, from the app's own constants."""
    named = {
        ("/api/formats/custom/encode", "rounding"): ROUNDINGS,
        ("/api/formats/{format_id}/encode", "overflow"): OVERFLOW_POLICIES,
        ("/api/compare", "rounding"): ROUNDINGS,
        ("/api/formats/custom", "nan_style"): CUSTOM_NAN_STYLES,
        ("/api/memory", "format"): [f.id for f in WEIGHT_FORMATS],
        ("/api/memory", "recipe"): list(RECIPES),
        ("/api/accumulation", "format"): SUMMABLE_FORMATS,
        ("/api/accumulation", "distribution"): list(ACCUMULATION_DISTRIBUTIONS),
        ("/api/accumulation", "method"): list(SUMMATION_METHODS),
    }
    for (route, name), ids in named.items():
        assert enum(parameter(openapi, route, name)) == list(ids), (route, name)
    schemas = openapi["components"]["schemas"]
    assert enum(schemas["QuantizeRequest"]["properties"]["format"]) == list(BLOCK_FORMAT_IDS)
    train = schemas["TrainRequest"]["properties"]
    assert (enum(train["scenario"]), enum(train["recipes"]), enum(train["dataset"])) == (
        list(SCENARIOS), list(RECIPES), list(DATASETS))
    assert train["recipes"]["uniqueItems"] is True


def test_the_schema_states_the_numeric_limits(openapi):
    exponent_bits = parameter(openapi, "/api/formats/custom", "exponent_bits")
    assert (exponent_bits["minimum"], exponent_bits["maximum"]) == (MIN_IEEE_EXPONENT_BITS, MAX_EXPONENT_BITS)
    assert [parameter(openapi, "/api/memory", name)["default"] for name in ("devices", "stage")] == [1, 0]
    params = parameter(openapi, "/api/memory", "params")
    assert [allows(params, n) for n in (7_000_000_000, "7B", "1.5T", "350M", 0, "0", "0.5K", 10**15 + 1)] == [
        True, True, True, True, False, False, False, False]
    value = parameter(openapi, "/api/compare", "value")
    assert all(allows(value, v) for v in ("0.1", "-2.5e-3", "0x1.8p-3", "1/3", "inf", "-inf", "nan", "-0"))
    assert not any(allows(value, v) for v in ("0x3c00", "1/0", "1e999999", "one", "1" * 1101))
    bits = parameter(openapi, "/api/formats/{format_id}/decode", "bits")
    assert all(allows(bits, v) for v in ("0x3c00", "0b0011", "15360")) and not allows(bits, "3c00")
    assert not allows(parameter(openapi, "/api/formats/{format_id}/decode", "format_id"), "mxfp4")
    quantize = openapi["components"]["schemas"]["QuantizeRequest"]
    for body, allowed in (({"format": "mxfp4", "values": [0.5] * 1024, "block_size": 1}, True),
                          ({"format": "mxfp4", "values": [0.5] * 1025, "block_size": 1}, False),
                          ({"format": "mxfp4", "values": [0.5] * 16384, "block_size": 16}, True),
                          ({"format": "mxfp4", "values": [0.5] * 16384}, True),
                          ({"format": "mxfp4", "values": [3.5e38]}, False),
                          ({"format": "mxfp4", "values": ["nan", "-inf", 1.0]}, True)):
        assert allows(quantize, body) == allowed, body


@pytest.mark.parametrize(("path", "sentence"), [
    ("/api/formats/float16/encode?value=1&rounding=up", "Unknown rounding 'up'; choose one of: "),
    ("/api/compare?value=1&overflow=wrap", "Unknown overflow policy 'wrap'; choose one of: "),
    ("/api/compare?value=one", "Could not read 'one' as a number."),
    ("/api/formats/float16/decode?bits=3c00", "Could not read '3c00' as a bit pattern;"),
    ("/api/formats/mxfp4/decode?bits=0", "mxfp4 is a block format:"),
    ("/api/formats/custom?exponent_bits=0&mantissa_bits=3", "A custom format has 1 to 15 exponent bits"),
    ("/api/formats/custom?exponent_bits=1&mantissa_bits=3", "IEEE-style inf and NaN take the all-ones exponent"),
    ("/api/formats/custom?exponent_bits=x&mantissa_bits=3", "exponent_bits must be a whole number, such as 5;"),
    ("/api/formats/custom?exponent_bits=4&mantissa_bits=3&nan_style=ieee754", "Unknown nan_style 'ieee754';"),
    ("/api/memory?params=0", "The number of parameters must be from 1 to 10^15"),
    ("/api/memory?params=7B&devices=0", "The number of accelerators must be a whole number from 1 to"),
    ("/api/accumulation?distribution=zipf", "'zipf' is not a distribution here; choose from "),
    ("/api/accumulation?method=", "'' is not a summation method; choose from "),
    ("/api/accumulation?n=0", "n must be a whole number of values from 1 to"),
])
def test_what_the_schema_refuses_the_app_refuses_with_its_own_sentence(client, path, sentence):
    """The limits are stated in the schema, not checked by the framework: its words would replace the app's."""
    response = client.get(path)
    assert response.status_code == 422 and response.json()["detail"].startswith(sentence)


@pytest.mark.parametrize(("path", "body", "sentence"), [
    ("/api/blocks/quantize", {"format": "fp4", "values": [1.0]}, "'fp4' is not a block format; "),
    ("/api/blocks/quantize", {"format": "mxfp4", "values": [1.0], "block_size": 0}, "block_size must be a whole"),
    ("/api/blocks/quantize", {"format": "mxfp4", "values": [1e39]}, "values[0] is 1e+39, beyond FP32's range"),
    ("/api/train", {"recipes": ["fp64"]}, "Unknown recipe 'fp64'; choose one of: "),
    ("/api/train", {"recipes": ["fp32", "fp32"]}, "Each recipe may be chosen only once."),
    ("/api/train", {"steps": 0}, "steps must be at least 1 (got 0)."),
    ("/api/train", {"learning_rate": 2.0}, "learning_rate must be at most 1 (got 2)."),
])
def test_what_the_body_schema_refuses_the_app_refuses_with_its_own_sentence(client, path, body, sentence):
    response = client.post(path, json=body)
    assert response.status_code == 422 and response.json()["detail"].startswith(sentence)


def test_the_named_values_of_the_schema_are_the_cores():
    """A new kind of format, overflow default or question type is a change of the API: it is written there too."""
    assert get_args(format_schemas.FormatKind) == get_args(spec.Kind)
    assert get_args(format_schemas.OverflowDefault) == get_args(spec.OverflowDefault)
    assert get_args(quiz_schemas.QuestionType) == get_args(questions.QuestionType)


def answers_as(model: type[BaseModel], body: str) -> bool:
    """Whether `body` is exactly what the model makes of it: no field missing, none extra, none retyped."""
    return model.model_validate_json(body).model_dump_json(exclude_unset=True) == body


def test_the_json_answers_outside_the_schema_have_models_too(client):
    """/readyz (for load balancers) and /oembed (for oEmbed consumers) are left out of /openapi.json."""
    assert answers_as(ReadinessAnswer, client.get("/readyz").text)
    answer = client.get("/oembed", params={"url": f"{client.app.state.settings.public_base_url}/compare"})
    assert answer.status_code == 200 and answers_as(OEmbedAnswer, answer.text)
