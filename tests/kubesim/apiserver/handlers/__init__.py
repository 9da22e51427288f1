"""The handlers of the resource verbs (apiserver pkg/endpoints/handlers), as mixins of the
ApiServer: rest.py (what they share, the verbs' dispatch, get, list, create, update), patch.py
(patches and server-side apply), scale.py (the `scale` subresource), delete.py and watch.py."""
