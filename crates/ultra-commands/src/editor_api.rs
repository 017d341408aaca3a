//! Seed 003 `editor.*` methods (written next).

use ultra_core::Registry;
use ultra_core::registry::RegistryError;

use crate::Services;

/// Register the seed 003 editor methods.
pub fn register(_r: &mut Registry<Services>) -> Result<(), RegistryError> {
    Ok(())
}
