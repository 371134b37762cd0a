"""The accountant's pages of the admin: the monthly revenue (revenue.py) and the export for the accountant
(export.py). No model admin hosts them; config/urls.py wires them at /admin/revenue/ and
/admin/accounting-export/ before the admin's own URLs."""
