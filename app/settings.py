"""One typed Settings object, read from the environment (prefix PRECISION_LAB_) or a .env file."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PRECISION_LAB_", env_file=".env", extra="ignore")

    environment: Literal["development", "test", "production"] = "development"
    debug: bool = False
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    max_input_length: int = 1100

    @model_validator(mode="after")
    def _refuse_unsafe_production(self) -> Settings:
        if self.environment == "production" and self.debug:
            raise ValueError("PRECISION_LAB_DEBUG must be off when PRECISION_LAB_ENVIRONMENT is production.")
        return self


@lru_cache
def get_settings() -> Settings:
    return Settings()
