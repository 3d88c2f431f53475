"""/openapi.json documents the JSON API: every success body field by field, with a description of each field, and
the refusals each operation can answer with, in the body the app sends (`{"detail": "<sentence>"}`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, get_args

import pytest
from pydantic import BaseModel

from app.formats import spec
from app.quiz import questions
from app.web.embed.schemas import OEmbed
from app.web.platform.errors import ERROR_SCHEMA
from app.web.platform.schemas import Readiness, RefusalBody
from app.web.quiz import schemas as quiz_schemas
from app.web.visualise import schemas as format_schemas

# The refusals each operation can answer with, besides the 422 of a request its parameters do not allow.
REFUSALS = {
    ("get", "/api/formats/custom"): {422},
    ("get", "/api/formats/custom/decode"): {422},
    ("get", "/api/formats/custom/encode"): {422},
    ("get", "/api/formats/{format_id}"): {404},
    ("get", "/api/formats/{format_id}/decode"): {404, 422},
    ("get", "/api/formats/{format_id}/encode"): {404, 422},
    ("get", "/api/compare"): {422},
    ("post", "/api/blocks/quantize"): {400, 422},
    ("post", "/api/train"): {400, 422, 429, 503},
    ("get", "/api/memory"): {422},
    ("get", "/api/accumulation"): {422},
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
    assert checked == 18


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
    schema = RefusalBody.model_json_schema()
    assert schema["required"] == ERROR_SCHEMA["required"]
    detail, expected = schema["properties"]["detail"], ERROR_SCHEMA["properties"]["detail"]
    assert {name: detail[name] for name in expected} == expected


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
    parameters = {parameter["name"]: parameter for parameter in openapi["paths"][route]["get"]["parameters"]}
    assert parameters[name]["schema"]["minLength"] == 1


def test_empty_strings_in_request_bodies_are_refused_by_the_schema(openapi):
    schemas = openapi["components"]["schemas"]
    assert schemas["QuantizeRequest"]["properties"]["format"]["minLength"] == 1
    train = schemas["TrainRequest"]["properties"]
    assert train["scenario"]["minLength"] == 1
    assert train["recipes"]["anyOf"][0]["items"]["minLength"] == 1


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
    assert answers_as(Readiness, client.get("/readyz").text)
    answer = client.get("/oembed", params={"url": f"{client.app.state.settings.public_base_url}/compare"})
    assert answer.status_code == 200 and answers_as(OEmbed, answer.text)
