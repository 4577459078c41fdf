//! The `settings!` macro: turns the one table of settings (`table.rs`) into the [`Config`]
//! struct and its `Default`, a getter and a builder method per setting (with the entry's doc),
//! the key dispatch of [`ConfigBuilder::set`] (whose rustdoc lists every key), and
//! [`Config::keys`]. Nothing else in the crate spells a key's name, default or parser.
//!
//! [`Config`]: super::Config
//! [`ConfigBuilder::set`]: super::ConfigBuilder::set
//! [`Config::keys`]: super::Config::keys

/// A getter: `-` (none), a name (returns the field), or `(name -> Type, |c| expression)`.
macro_rules! setting_getter {
    (-, $($rest:tt)*) => {};
    ($name:ident, $field:ident, $ty:ty, [$($doc:literal)+], $key:literal) => {
        impl Config {
            $(#[doc = $doc])+
            #[doc = ""]
            #[doc = concat!("Key `", $key, "`; see [`Config::keys`].")]
            pub fn $name(&self) -> $ty {
                self.$field
            }
        }
    };
    (($name:ident -> $rt:ty, |$c:ident| $body:expr), $field:ident, $ty:ty, [$($doc:literal)+],
     $key:literal) => {
        impl Config {
            $(#[doc = $doc])+
            #[doc = ""]
            #[doc = concat!("Key `", $key, "`; see [`Config::keys`].")]
            pub fn $name(&self) -> $rt {
                let $c = self;
                $body
            }
        }
    };
}

/// A builder method: `-` (none), a name (sets the field), or `(name |b, arg: Type| expression)`.
macro_rules! setting_builder {
    (-, $($rest:tt)*) => {};
    ($name:ident, $field:ident, $ty:ty, [$($doc:literal)+], $key:literal) => {
        impl ConfigBuilder {
            $(#[doc = $doc])+
            #[doc = ""]
            #[doc = concat!("Key `", $key, "`; see [`Config::keys`].")]
            pub fn $name(mut self, value: $ty) -> ConfigBuilder {
                self.config.$field = value;
                self
            }
        }
    };
    (($name:ident |$b:ident, $arg:ident: $aty:ty| $body:expr), $field:ident, $ty:ty,
     [$($doc:literal)+], $key:literal) => {
        impl ConfigBuilder {
            $(#[doc = $doc])+
            #[doc = ""]
            #[doc = concat!("Key `", $key, "`; see [`Config::keys`].")]
            pub fn $name(mut self, $arg: $aty) -> ConfigBuilder {
                {
                    let $b = &mut self;
                    $body;
                }
                self
            }
        }
    };
}

/// Stores a parsed value: `=` (into the entry's field) or `(|b, v| statement)`.
macro_rules! setting_store {
    (=, $builder:expr, $field:ident, $value:expr) => {
        $builder.config.$field = $value
    };
    ((|$b:ident, $v:ident| $body:expr), $builder:expr, $field:ident, $value:expr) => {{
        let $b: &mut ConfigBuilder = $builder;
        let $v = $value;
        let _ = &$b;
        $body;
    }};
}

/// The settings table; see `table.rs` for the entry forms.
macro_rules! settings {
    (
        fields {$(
            $(#[doc = $doc:literal])+
            $field:ident: $ty:ty = $default:expr,
            key $key:literal $(| $alias:literal)*, kind $kind:ty, java $java:literal,
            set $set:tt, get $get:tt, build $build:tt;
        )*}
        places {$(
            $(#[doc = $pdoc:literal])+
            key $pkey:literal $(| $palias:literal)*, kind $pkind:ty, java $pjava:literal,
            read |$pb:ident| $pread:expr, set $pset:tt;
        )*}
        plain {$(
            $(#[doc = $xdoc:literal])+
            $xfield:ident: $xty:ty = $xdefault:expr;
        )*}
    ) => {
        /// Client settings. Build with [`Config::builder`]; clone freely. Every setting, its
        /// key, default and meaning: [`Config::keys`] (and [`ConfigBuilder::set`]).
        #[derive(Debug, Clone)]
        pub struct Config {
            $( $(#[doc = $doc])+ pub(crate) $field: $ty, )*
            $( $(#[doc = $xdoc])+ pub(crate) $xfield: $xty, )*
        }

        impl Default for Config {
            fn default() -> Self {
                Config {
                    $( $field: $default, )*
                    $( $xfield: $xdefault, )*
                }
            }
        }

        $(
            setting_getter!($get, $field, $ty, [$($doc)+], $key);
            setting_builder!($build, $field, $ty, [$($doc)+], $key);
        )*

        impl Config {
            /// Every configuration key the client understands, in the table's order, with its
            /// other names, its value form, its default (in the form [`ConfigBuilder::set`]
            /// accepts; empty: unset, see the doc) and what it means. The guide and the C API's
            /// `hb_config_set` document this list; tests keep them in step with it.
            pub fn keys() -> Vec<KeyInfo> {
                Config::keys_of(&Config::builder())
            }

            /// [`Config::keys`] with the values `defaults` holds.
            pub(crate) fn keys_of(defaults: &ConfigBuilder) -> Vec<KeyInfo> {
                let mut keys = vec![
                    $(KeyInfo {
                        key: $key,
                        aliases: &[$($alias),*],
                        form: <$kind as Kind>::FORM,
                        default: <$kind as Kind>::show(&defaults.config.$field),
                        doc: concat!($($doc, "\n"),+),
                        java: $java,
                    },)*
                ];
                $({
                    let $pb = defaults;
                    let _ = &$pb;
                    keys.push(KeyInfo {
                        key: $pkey,
                        aliases: &[$($palias),*],
                        form: <$pkind as Kind>::FORM,
                        default: <$pkind as Kind>::show(&$pread),
                        doc: concat!($($pdoc, "\n"),+),
                        java: $pjava,
                    });
                })*
                keys
            }
        }

        impl ConfigBuilder {
            /// Sets a value by its HBase key. Unknown keys are an error, so typos do not pass
            /// silently. Every rejection is an [`ErrorKind::InvalidArgument`](crate::ErrorKind)
            /// whose message names the key and says why. Byte sizes take Hadoop's units too
            /// (`2MB`, `64k`, `1g`). A key `hbclient.connection.attribute.<name>` sets a
            /// connection attribute (see [`ConfigBuilder::connection_attribute`]).
            ///
            /// The keys (generated from the settings table; [`Config::keys`] gives the same
            /// list with defaults):
            ///
            $(#[doc = concat!("- `", $key, "`", $(" (also `", $alias, "`)",)* ":", $($doc),+)])*
            $(#[doc = concat!("- `", $pkey, "`", $(" (also `", $palias, "`)",)* ":", $($pdoc),+)])*
            pub fn set(mut self, key: &str, value: &str) -> Result<ConfigBuilder> {
                if self.apply(key, value)? {
                    Ok(self)
                } else {
                    Err(Error::invalid(format!("unknown configuration key {key:?}")))
                }
            }

            /// Sets a key of the table; `Ok(false)` when the table does not know it.
            pub(super) fn apply_table(&mut self, key: &str, value: &str) -> Result<bool> {
                match key {
                    $($key $(| $alias)* => {
                        let parsed = <$kind as Kind>::parse(key, value)?;
                        setting_store!($set, self, $field, parsed);
                    })*
                    $($pkey $(| $palias)* => {
                        let parsed = <$pkind as Kind>::parse(key, value)?;
                        setting_store!($pset, self, unused, parsed);
                    })*
                    _ => return Ok(false),
                }
                Ok(true)
            }
        }
    };
}
