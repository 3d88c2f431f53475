"""API documentation rendered on the server from the app's own OpenAPI schema (no CDN, no inline script)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.web.platform.rendering import render

router = APIRouter()

# Values that make a working example link for GET endpoints, by parameter name.
EXAMPLES = {"format_id": "float16", "value": "0.1", "bits": "0x3c00", "exponent_bits": "5", "mantissa_bits": "10"}
METHODS = ("get", "post", "put", "patch", "delete")


def _type(schema: dict[str, Any]) -> str:
    """A JSON schema's type in a few words."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in schema:
        return " or ".join(_type(option) for option in schema["anyOf"])
    if schema.get("type") == "array":
        return f"list of {_type(schema.get('items', {}))}"
    return str(schema.get("type", "any"))


def _parameter(parameter: dict[str, Any]) -> dict[str, Any]:
    schema = parameter.get("schema", {})
    return {
        "name": parameter["name"],
        "where": parameter.get("in", "query"),
        "required": parameter.get("required", False),
        "type": _type(schema),
        "default": schema.get("default"),
        "description": parameter.get("description") or schema.get("description", ""),
    }


def _body_fields(operation: dict[str, Any], schemas: dict[str, Any]) -> list[dict[str, Any]]:
    """The fields of a JSON request body, from its component schema."""
    content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    schema = content.get("schema", {})
    if "$ref" in schema:
        schema = schemas.get(str(schema["$ref"]).rsplit("/", 1)[-1], {})
    required = set(schema.get("required", []))
    return [
        {"name": name, "type": _type(field), "required": name in required,
         "default": field.get("default"), "description": field.get("description", "")}
        for name, field in schema.get("properties", {}).items()
    ]


def _example(path: str, parameters: list[dict[str, Any]]) -> str | None:
    """A GET URL with every required parameter filled in, where the examples cover them."""
    query = {}
    for parameter in parameters:
        if not parameter["required"]:
            continue
        if parameter["name"] not in EXAMPLES:
            return None
        if parameter["where"] == "path":
            path = path.replace("{" + parameter["name"] + "}", EXAMPLES[parameter["name"]])
        else:
            query[parameter["name"]] = EXAMPLES[parameter["name"]]
    return path + (f"?{urlencode(query)}" if query else "")


def operations(openapi: dict[str, Any]) -> list[dict[str, Any]]:
    schemas = openapi.get("components", {}).get("schemas", {})
    found = []
    for path, item in openapi.get("paths", {}).items():
        for method in METHODS:
            if method not in item:
                continue
            operation = item[method]
            parameters = [_parameter(p) for p in operation.get("parameters", [])]
            found.append({
                "path": path,
                "method": method.upper(),
                "summary": operation.get("summary", ""),
                "description": operation.get("description", ""),
                "parameters": parameters,
                "body": _body_fields(operation, schemas),
                "example": _example(path, parameters) if method == "get" else None,
                "anchor": operation.get("operationId", f"{method}-{path}"),
            })
    return found


@router.get("/docs", include_in_schema=False)
def docs(request: Request) -> HTMLResponse:
    openapi = request.app.openapi()
    context = {"info": openapi.get("info", {}), "operations": operations(openapi)}
    return render(request, "docs.html", context, fragment="content")
