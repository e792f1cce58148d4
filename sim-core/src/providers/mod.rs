//! Routing across rented capacity (article §12, §14.3–14.4): the policies
//! gateways and SDK routers use to choose among provider deployments.
//!
//! This starts with LiteLLM's router strategies and cooldowns as pure
//! functions over what the router knows of each deployment; the providers
//! lab (deployments with quotas, regions and the provider's own cache) is
//! built on them.

pub mod gateway;
pub mod litellm;
