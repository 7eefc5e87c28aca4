"""Marshmallow schemas: the only mapping between JSON bodies and Python, and the source of the OpenAPI doc.

One module per blueprint of api.blueprints (its request and answer bodies); `common` holds what several share:
the problem body, the field types of moves and views, the OpenAPI view components, the page limit.
"""
