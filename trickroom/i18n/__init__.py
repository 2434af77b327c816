"""The players' languages: texts kept as English templates, rendered at the edge.

How the pieces fit. Code that says something to a person builds a
:class:`~trickroom.i18n.message.Msg` (an English template and its values) instead of a
finished string; the rules engines raise with one, the server's refusals carry one.
The English template is the gettext key: ``locale/messages.pot`` lists every key
(``python -m trickroom.i18n.extract`` writes it from the source), and each language's
``locale/<lang>/LC_MESSAGES/messages.po`` translates them (Babel reads the catalogs once
per process). The edge that knows the reader's language (a connection's, an HTTP
request's ``?lang=`` or ``Accept-Language``) calls :func:`trickroom.i18n.catalogs.render`
(this package's top holds only the pure values: the rules engines import it without
Babel). English is the source
and needs no catalog; ``en-XA`` is a pseudo-locale made from English by code (accented,
about 40% longer), so tests see at once a text that escaped the catalogs or a layout
that cannot take longer words.

Adding a language is adding its ``.po`` file and its tag to :data:`LANGUAGES`.
"""

from trickroom.i18n.message import Listing, Msg, PluralMsg, ScriptName, Text

__all__ = ["Listing", "Msg", "PluralMsg", "ScriptName", "Text"]
