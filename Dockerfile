FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# manage.py defaults to debug on: every command in the image (build, migrate, exec) runs in production mode.
ENV DJANGO_DEBUG=false
WORKDIR /app

COPY . .
# collectstatic gets a throwaway key of production strength for itself alone: the image keeps none.
RUN pip install . \
    && DJANGO_SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(50))')" \
        python manage.py collectstatic --noinput \
    && useradd --create-home --uid 1000 app && chown -R app /app
USER app

EXPOSE 8000
# Migrations (which also seed the default tariffs) run before the workers start.
CMD ["sh", "-c", "python manage.py migrate --noinput && exec gunicorn -c config/gunicorn.conf.py config.wsgi"]
