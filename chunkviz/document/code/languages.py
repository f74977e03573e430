"""The programming languages the ``code`` strategy reads on tree-sitter, one entry per language.

Each entry names the PyPI grammar package (a per-language wheel such as ``tree-sitter-go``,
never a package that downloads grammars at run time) and the node kinds that matter for
chunking: which nodes are definitions and what to call them (``function``, ``class``, ``impl``,
...), which definitions hold members (a class's methods), which nodes only wrap a definition
(``export``, ``template<...>``, ``const f = () => ...``), which sibling nodes belong to the
definition below them (comments, Rust's ``#[...]`` attributes) and which nodes are only a list
of statements to look through (Go's ``statement_list``). Adding a language is one entry here
and its package in the ``code`` extra. This module imports nothing: the grammars load on use
(:mod:`chunkviz.document.code.outline`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Mapping

#: The extra that installs tree-sitter and the grammars.
CODE_EXTRA = "code"


@dataclass(frozen=True)
class CodeLanguage:
    """One language (see the module docstring)."""

    name: str  # the format name and the value of ``-p language=``
    label: str  # for messages: "TypeScript"
    extensions: tuple[str, ...]
    package: str  # PyPI package of the grammar
    module: str  # its import name
    definitions: Mapping[str, str]  # node type -> kind of definition
    containers: frozenset[str] = frozenset()  # definitions whose body holds members
    wrappers: frozenset[str] = frozenset()  # nodes that wrap one definition
    leading: frozenset[str] = frozenset({"comment"})  # siblings that belong to the definition below
    transparent: frozenset[str] = frozenset()  # lists of statements or members, looked through
    refine: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # node type -> {inner type: kind}
    function: str = "language"  # the grammar module's function that returns the language


_JS_DEFINITIONS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "function_expression": "function",
    "arrow_function": "function",
    "class_declaration": "class",
    "class": "class",  # a class expression: static Inner = class { ... }
    "method_definition": "method",
}
_JS_WRAPPERS = frozenset(
    {"export_statement", "lexical_declaration", "variable_declaration", "variable_declarator", "field_definition"}
)
_TS_DEFINITIONS = {
    **_JS_DEFINITIONS,
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "type_alias_declaration": "type",
    "internal_module": "namespace",
    "module": "module",
    "function_signature": "function",
    "method_signature": "method",
    "abstract_method_signature": "method",
}
_TS_CONTAINERS = frozenset(
    {"class_declaration", "class", "abstract_class_declaration", "interface_declaration", "internal_module", "module"}
)
_TS_WRAPPERS = _JS_WRAPPERS | {"public_field_definition", "expression_statement", "ambient_declaration"}
_C_DEFINITIONS = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "union_specifier": "union",
    "enum_specifier": "enum",
    "type_definition": "type",
}

LANGUAGES: dict[str, CodeLanguage] = {
    language.name: language
    for language in (
        CodeLanguage(
            "javascript",
            "JavaScript",
            (".js", ".mjs", ".cjs", ".jsx"),
            "tree-sitter-javascript",
            "tree_sitter_javascript",
            _JS_DEFINITIONS,
            containers=frozenset({"class_declaration", "class"}),
            wrappers=_JS_WRAPPERS,
        ),
        CodeLanguage(
            "typescript",
            "TypeScript",
            (".ts", ".mts", ".cts"),
            "tree-sitter-typescript",
            "tree_sitter_typescript",
            _TS_DEFINITIONS,
            containers=_TS_CONTAINERS,
            wrappers=_TS_WRAPPERS,
            function="language_typescript",
        ),
        CodeLanguage(
            "tsx",
            "TSX",
            (".tsx",),
            "tree-sitter-typescript",
            "tree_sitter_typescript",
            _TS_DEFINITIONS,
            containers=_TS_CONTAINERS,
            wrappers=_TS_WRAPPERS,
            function="language_tsx",
        ),
        CodeLanguage(
            "go",
            "Go",
            (".go",),
            "tree-sitter-go",
            "tree_sitter_go",
            {"function_declaration": "function", "method_declaration": "method", "type_declaration": "type"},
            transparent=frozenset({"statement_list"}),
            refine={"type_declaration": {"struct_type": "struct", "interface_type": "interface"}},
        ),
        CodeLanguage(
            "rust",
            "Rust",
            (".rs",),
            "tree-sitter-rust",
            "tree_sitter_rust",
            {
                "function_item": "function",
                "function_signature_item": "function",
                "struct_item": "struct",
                "enum_item": "enum",
                "union_item": "union",
                "trait_item": "trait",
                "impl_item": "impl",
                "mod_item": "module",
                "macro_definition": "macro",
            },
            containers=frozenset({"impl_item", "trait_item", "mod_item"}),
            leading=frozenset({"line_comment", "block_comment", "attribute_item"}),
        ),
        CodeLanguage(
            "java",
            "Java",
            (".java",),
            "tree-sitter-java",
            "tree_sitter_java",
            {
                "class_declaration": "class",
                "interface_declaration": "interface",
                "enum_declaration": "enum",
                "record_declaration": "record",
                "annotation_type_declaration": "annotation",
                "method_declaration": "method",
                "constructor_declaration": "constructor",
            },
            containers=frozenset(
                {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}
            ),
            leading=frozenset({"line_comment", "block_comment"}),
            transparent=frozenset({"enum_body_declarations"}),
        ),
        CodeLanguage("c", "C", (".c", ".h"), "tree-sitter-c", "tree_sitter_c", _C_DEFINITIONS),
        CodeLanguage(
            "cpp",
            "C++",
            (".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++"),
            "tree-sitter-cpp",
            "tree_sitter_cpp",
            {**_C_DEFINITIONS, "class_specifier": "class", "namespace_definition": "namespace"},
            containers=frozenset({"class_specifier", "struct_specifier", "namespace_definition"}),
            wrappers=frozenset({"template_declaration", "field_declaration", "declaration"}),
        ),
        CodeLanguage(
            "csharp",
            "C#",
            (".cs",),
            "tree-sitter-c-sharp",
            "tree_sitter_c_sharp",
            {
                "class_declaration": "class",
                "struct_declaration": "struct",
                "interface_declaration": "interface",
                "enum_declaration": "enum",
                "record_declaration": "record",
                "namespace_declaration": "namespace",
                "method_declaration": "method",
                "constructor_declaration": "constructor",
                "property_declaration": "property",
                "local_function_statement": "function",
            },
            containers=frozenset(
                {
                    "class_declaration",
                    "struct_declaration",
                    "interface_declaration",
                    "record_declaration",
                    "namespace_declaration",
                }
            ),
        ),
        CodeLanguage(
            "ruby",
            "Ruby",
            (".rb", ".rake", ".gemspec"),
            "tree-sitter-ruby",
            "tree_sitter_ruby",
            {
                "method": "function",  # a method in a class or module, a function at the top
                "singleton_method": "function",
                "class": "class",
                "singleton_class": "class",
                "module": "module",
            },
            containers=frozenset({"class", "singleton_class", "module"}),
        ),
        CodeLanguage(
            "php",
            "PHP",
            (".php", ".phtml"),
            "tree-sitter-php",
            "tree_sitter_php",
            {
                "function_definition": "function",
                "class_declaration": "class",
                "interface_declaration": "interface",
                "trait_declaration": "trait",
                "enum_declaration": "enum",
                "method_declaration": "method",
                "namespace_definition": "namespace",
            },
            containers=frozenset(
                {
                    "class_declaration",
                    "interface_declaration",
                    "trait_declaration",
                    "enum_declaration",
                    "namespace_definition",
                }
            ),
            function="language_php",
        ),
    )
}

#: The format (language name) each file extension (lower case) chooses.
CODE_EXTENSION_FORMATS: dict[str, str] = {
    extension: language.name for language in LANGUAGES.values() for extension in language.extensions
}
#: Every language the ``code`` strategy reads: Python (on :mod:`ast`) and the tree-sitter ones.
CODE_LANGUAGE_NAMES: tuple[str, ...] = ("python", *LANGUAGES)


def language_for_name(name: str) -> str | None:
    """The language a file name's extension says (``None`` when it names none of :data:`LANGUAGES`)."""
    return CODE_EXTENSION_FORMATS.get(PurePath(name).suffix.lower())


__all__ = [
    "CODE_EXTENSION_FORMATS",
    "CODE_EXTRA",
    "CODE_LANGUAGE_NAMES",
    "LANGUAGES",
    "CodeLanguage",
    "language_for_name",
]
